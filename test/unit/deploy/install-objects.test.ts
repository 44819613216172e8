import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { burstTargetCrd, miniClusterCrd } from '../../../src/api/index.ts';
import {
  OPERATOR_NAMESPACE,
  OPERATOR_VERSION,
  crdAndRbacObjects,
  installObjects,
  multiDocumentYaml,
} from '../../../src/deploy/index.ts';
import { REPOSITORY_ROOT, staleFiles } from '../../../hack/generate.ts';
import { INSTALL_YAML_PATH, deployFiles } from '../../../hack/deploy-files.ts';

function kindsAndNames(objects: readonly { kind: string; metadata: { name: string; namespace?: string } }[]) {
  return objects.map((o) => `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
}

describe('installObjects', () => {
  it('lists the Namespace first, then the CRD and RBAC, the webhook Service, the Deployment last', () => {
    assert.deepEqual(kindsAndNames(installObjects({ namespace: 'ops' })), [
      'Namespace/ops',
      'CustomResourceDefinition/miniclusters.flux-framework.org',
      'CustomResourceDefinition/bursttargets.flux-framework.org',
      'ValidatingAdmissionPolicy/flux-operator-host-storage',
      'ValidatingAdmissionPolicyBinding/flux-operator-host-storage',
      'ClusterRole/flux-operator',
      'ClusterRole/flux-operator-metrics-reader',
      'ServiceAccount/ops/flux-operator',
      'ClusterRoleBinding/flux-operator-ops',
      'Role/ops/flux-operator-webhook-cert',
      'RoleBinding/ops/flux-operator-webhook-cert',
      'Role/ops/flux-operator-leader-election',
      'RoleBinding/ops/flux-operator-leader-election',
      'Service/ops/flux-operator-webhook',
      'Deployment/ops/flux-operator',
    ]);
  });

  it('watching namespaces: a narrow ClusterRole of its own, a Role and binding in each watched namespace; allowed namespaces labelled', () => {
    const objects = installObjects({
      namespace: 'ops',
      watchNamespaces: ['ns-a', 'ns-b'],
      allowHostStorage: ['ns-a'],
    });
    assert.deepEqual(kindsAndNames(objects).slice(3, 16), [
      'ValidatingAdmissionPolicy/flux-operator-host-storage',
      'ValidatingAdmissionPolicyBinding/flux-operator-host-storage',
      'Namespace/ns-a',
      'ClusterRole/flux-operator-cluster-ops',
      'ClusterRole/flux-operator-metrics-reader',
      'ServiceAccount/ops/flux-operator',
      'ClusterRoleBinding/flux-operator-cluster-ops',
      'Role/ns-a/flux-operator-ops',
      'RoleBinding/ns-a/flux-operator-ops',
      'Role/ns-b/flux-operator-ops',
      'RoleBinding/ns-b/flux-operator-ops',
      'Role/ops/flux-operator-webhook-cert',
      'RoleBinding/ops/flux-operator-webhook-cert',
    ]);
    assert.deepEqual(objects[5]?.metadata.labels, { 'flux-framework.org/host-storage': 'allowed' });
  });

  it('the host storage policy refuses hostpath and CSI MiniClusters (both versions, create and spec updates) where the label is not', () => {
    const [policy, binding] = installObjects().slice(3, 5) as unknown as {
      spec: Record<string, unknown> & { matchConstraints: { resourceRules: unknown[] }; matchResources: unknown };
    }[];
    assert.deepEqual(policy?.spec.matchConstraints.resourceRules, [
      { apiGroups: ['flux-framework.org'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['miniclusters'] },
    ]);
    assert.deepEqual(binding?.spec.matchResources, {
      namespaceSelector: {
        matchExpressions: [{ key: 'flux-framework.org/host-storage', operator: 'NotIn', values: ['allowed'] }],
      },
    });
  });

  it('crdAndRbacObjects is the same without the webhook Service and the Deployment', () => {
    assert.deepEqual(crdAndRbacObjects({ namespace: 'ops' }), installObjects({ namespace: 'ops' }).slice(0, -2));
    assert.equal(crdAndRbacObjects()[0]?.metadata.name, OPERATOR_NAMESPACE);
  });

  it("carries the CRDs from src/api, the MiniCluster CRD's conversions sent to the install's Service", () => {
    assert.deepEqual(installObjects()[1], miniClusterCrd());
    const crd = installObjects({ namespace: 'ops' })[1] as ReturnType<typeof miniClusterCrd>;
    assert.deepEqual(crd.spec.conversion?.webhook.clientConfig, {
      service: { namespace: 'ops', name: 'flux-operator-webhook', path: '/convert', port: 443 },
    });
    assert.deepEqual(installObjects()[2], burstTargetCrd());
  });

  it('labels the namespace for the restricted Pod Security profile the operator pod meets', () => {
    assert.equal(installObjects()[0]?.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
  });

  it('is pure: the same objects on every call', () => {
    assert.deepEqual(installObjects({ image: 'a:1' }), installObjects({ image: 'a:1' }));
  });
});

describe('OPERATOR_VERSION', () => {
  it("equals package.json's version (the image tag and the chart's appVersion)", () => {
    const pkg = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(OPERATOR_VERSION, pkg.version);
  });
});

describe('deploy/install.yaml', () => {
  const paths = deployFiles().map((file) => file.path);

  it('and the generated chart files are up to date (run `npm run generate` when this fails)', () => {
    assert.deepEqual(
      staleFiles().filter((path) => paths.includes(path)),
      [],
    );
  });

  const text = readFileSync(join(REPOSITORY_ROOT, INSTALL_YAML_PATH), 'utf8');
  const documents = parseAllDocuments(text);

  it('says it is generated and parses without errors', () => {
    assert.match(text, /^# Generated by `npm run generate`/);
    for (const document of documents) assert.deepEqual(document.errors, []);
  });

  it('holds each object of installObjects() once (two CRDs)', () => {
    const objects = documents.map((document) => document.toJS() as { kind: string });
    const kinds = objects.map((object) => object.kind);
    assert.deepEqual([...kinds].sort(), [
      'ClusterRole',
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'Deployment',
      'Namespace',
      'Role',
      'Role',
      'RoleBinding',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    assert.deepEqual(objects, JSON.parse(JSON.stringify(installObjects())));
  });

  it('explains each RBAC rule in a comment', () => {
    assert.ok(text.includes('  # The burst queue reader runs `flux jobs` in the lead broker pod (over a WebSocket).\n  - apiGroups:'));
    assert.equal(text, `${text.split('\n').slice(0, 2).join('\n')}\n${multiDocumentYaml(installObjects())}`);
  });
});
