import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from '../../../src/api/shared/problems.ts';
import { validateBurstTarget } from '../../../src/api/burst-target-validate.ts';
import type { BurstTarget } from '../../../src/api/burst-target-schema.ts';

function target(spec: Record<string, unknown>, name = 'remote', namespace = 'team-a'): BurstTarget {
  return {
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'BurstTarget',
    metadata: { name, namespace },
    spec: spec as BurstTarget['spec'],
  };
}

const gke = {
  project: 'my-project-1',
  location: 'us-central1-a',
  clusterName: 'burst',
  machineType: 'e2-standard-8',
};
const eks = {
  region: 'us-east-1',
  clusterName: 'burst',
  roleArn: 'arn:aws:iam::123456789012:role/eks-cluster',
  nodeRoleArn: 'arn:aws:iam::123456789012:role/eks-nodes',
  subnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
  instanceType: 'c5.4xlarge',
};

const { roleArn: _roleArn, ...withoutRoleArn } = eks;

function problemsOf(input: unknown, previous?: BurstTarget): [string, string][] {
  const result = validateBurstTarget(input, previous);
  assert.equal(result.ok, false, 'expected problems');
  return result.ok ? [] : result.problems.map((problem) => [problem.path, problem.message]);
}

describe('validateBurstTarget', () => {
  it('defaults the kubeconfig key, installOperator off and the target namespace (the local namespace name)', () => {
    const result = validateBurstTarget(
      target({ provider: 'kubeconfig', kubeconfig: { secretName: 'remote-kc' } }),
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.deepEqual(result.value.spec, {
      provider: 'kubeconfig',
      kubeconfig: { secretName: 'remote-kc', key: 'kubeconfig', installOperator: false },
      namespace: 'team-a',
    });
  });

  it('keeps an explicit namespace and key', () => {
    const result = validateBurstTarget(
      target({ provider: 'kubeconfig', namespace: 'burst', kubeconfig: { secretName: 's', key: 'config' } }),
    );
    assert.ok(result.ok);
    assert.equal(result.value.spec.namespace, 'burst');
    assert.equal(result.value.spec.kubeconfig?.key, 'config');
  });

  it('accepts complete GKE and EKS specs', () => {
    assert.equal(validateBurstTarget(target({ provider: 'gke', gke })).ok, true);
    assert.equal(
      validateBurstTarget(target({ provider: 'eks', eks: { ...eks, credentialsSecret: 'aws-creds' } })).ok,
      true,
    );
  });

  it('defaults nodeCount to 1 and keeps a given nodeCount and kubernetesVersion', () => {
    const gkeResult = validateBurstTarget(target({ provider: 'gke', gke }));
    assert.ok(gkeResult.ok);
    assert.equal(gkeResult.value.spec.gke?.nodeCount, 1);
    const eksResult = validateBurstTarget(
      target({ provider: 'eks', eks: { ...eks, nodeCount: 5, kubernetesVersion: '1.33' } }),
    );
    assert.ok(eksResult.ok);
    assert.equal(eksResult.value.spec.eks?.nodeCount, 5);
    assert.equal(eksResult.value.spec.eks?.kubernetesVersion, '1.33');
  });

  const cases: { name: string; input: unknown; problems: [string, RegExp][] }[] = [
    {
      name: 'unknown provider',
      input: target({ provider: 'aks' }),
      problems: [['spec.provider', /^must be one of: kubeconfig, gke, eks; got "aks"$/]],
    },
    {
      name: 'kubeconfig provider without its block',
      input: target({ provider: 'kubeconfig' }),
      problems: [['spec.kubeconfig', /^is required when provider is kubeconfig; name the Secret/]],
    },
    {
      name: 'a block of another provider',
      input: target({ provider: 'kubeconfig', kubeconfig: { secretName: 's' }, gke }),
      problems: [['spec.gke', /only read when provider is gke; remove it or set provider: gke/]],
    },
    {
      name: 'eks provider without its block',
      input: target({ provider: 'eks' }),
      problems: [['spec.eks', /required when provider is eks; give the region/]],
    },
    {
      name: 'secret name not a DNS subdomain',
      input: target({ provider: 'kubeconfig', kubeconfig: { secretName: 'Bad_Name' } }),
      problems: [['spec.kubeconfig.secretName', /must be a DNS subdomain/]],
    },
    {
      name: 'bad secret key',
      input: target({ provider: 'kubeconfig', kubeconfig: { secretName: 's', key: 'a/b' } }),
      problems: [['spec.kubeconfig.key', /^must be a Secret key: letters, digits.*; got "a\/b"$/]],
    },
    {
      name: 'unknown field',
      input: target({ provider: 'kubeconfig', kubeconfig: { secretName: 's', secret: 'x' } }),
      problems: [['spec.kubeconfig.secret', /is not a field of this object/]],
    },
    {
      name: 'EKS with one subnet, a bad ARN and a bad region',
      input: target({
        provider: 'eks',
        eks: { ...eks, region: 'useast', nodeRoleArn: 'role/eks', subnetIds: ['subnet-0123456789abcdef0'] },
      }),
      problems: [
        ['spec.eks.region', /must be an AWS region such as us-east-1; got "useast"/],
        ['spec.eks.nodeRoleArn', /must be an IAM role ARN/],
        ['spec.eks.subnetIds', /must have at least 2 item/],
      ],
    },
    {
      name: 'EKS without its cluster role, with zero nodes and a patch version',
      input: target({
        provider: 'eks',
        eks: { ...withoutRoleArn, nodeCount: 0, kubernetesVersion: '1.33.2' },
      }),
      problems: [
        ['spec.eks.roleArn', /required/],
        ['spec.eks.nodeCount', /1/],
        ['spec.eks.kubernetesVersion', /must be a Kubernetes version major\.minor such as 1\.33/],
      ],
    },
    {
      name: 'GKE with a fractional node count',
      input: target({ provider: 'gke', gke: { ...gke, nodeCount: 1.5 } }),
      problems: [['spec.gke.nodeCount', /integer/]],
    },
    {
      name: 'GKE with a bad project and zone',
      input: target({ provider: 'gke', gke: { ...gke, project: 'X', location: 'central' } }),
      problems: [
        ['spec.gke.project', /must be a GCP project id/],
        ['spec.gke.location', /must be a GCP region or zone/],
      ],
    },
    {
      name: 'name that a MiniCluster cannot refer to',
      input: target({ provider: 'kubeconfig', kubeconfig: { secretName: 's' } }, '1remote'),
      problems: [['metadata.name', /must be a DNS label starting with a letter/]],
    },
    {
      name: 'bad target namespace',
      input: target({ provider: 'kubeconfig', kubeconfig: { secretName: 's' }, namespace: 'Team A' }),
      problems: [['spec.namespace', /must be a DNS label/]],
    },
  ];
  for (const testCase of cases) {
    it(`reports ${testCase.name}`, () => {
      const problems = problemsOf(testCase.input);
      assert.deepEqual(
        problems.map(([path]) => path),
        testCase.problems.map(([path]) => path),
        problems.map(([path, message]) => `${path}: ${message}`).join('\n'),
      );
      problems.forEach(([, message], index) => assert.match(message, testCase.problems[index]?.[1] ?? /^$/));
    });
  }

  it('refuses a provider change against the stored object', () => {
    const stored = target({ provider: 'kubeconfig', kubeconfig: { secretName: 's' } });
    assert.deepEqual(problemsOf(target({ provider: 'gke', gke }), stored), [
      ['spec.provider', 'is fixed at creation (was kubeconfig); create another BurstTarget instead'],
    ]);
  });

  it('never throws on junk', () => {
    for (const junk of [null, 1, 'x', [], {}, { spec: null }, { metadata: {}, spec: { provider: 3 } }]) {
      assert.equal(validateBurstTarget(junk).ok, false);
    }
  });
});
