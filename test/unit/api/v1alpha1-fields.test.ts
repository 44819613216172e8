// Fields of the Go operator's v1alpha1 API that this one keeps: what they accept and how they render.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { miniClusterCrd } from '../../../src/api/minicluster-crd.ts';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import type { MiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { KEYS, find, present } from '../render/fixtures.ts';
import { fluxContainer, miniCluster } from './fixtures.ts';
import { defaultedToV1alpha2 } from '../../../src/api/v1alpha1/convert-defaulted.ts';

function problemsOf(input: MiniClusterV1alpha1): string[] {
  const result = validateMiniClusterV1alpha1(input);
  return result.ok ? [] : result.problems.map(formatProblem);
}

function rendered(input: MiniClusterV1alpha1) {
  const result = validateMiniClusterV1alpha1(input);
  assert.ok(result.ok, JSON.stringify(result));
  return renderMiniCluster(defaultedToV1alpha2(result.value), KEYS);
}

describe('container secrets (environment from Secret keys)', () => {
  const token = { name: 'api-credentials', key: 'token' };

  it('renders each as valueFrom.secretKeyRef, after the plain values, in name order', () => {
    const job = find.job(
      rendered(
        miniCluster({
          containers: [
            fluxContainer({
              environment: { MODE: 'fast' },
              secrets: { TOKEN: token, AWS_ACCESS_KEY_ID: { name: 'aws', key: 'AWS_ACCESS_KEY_ID' } },
            }),
          ],
        }),
      ),
    );
    const [container] = present(job.spec?.template.spec).containers;
    assert.deepEqual(container?.env, [
      { name: 'MODE', value: 'fast' },
      {
        name: 'AWS_ACCESS_KEY_ID',
        valueFrom: { secretKeyRef: { name: 'aws', key: 'AWS_ACCESS_KEY_ID' } },
      },
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'api-credentials', key: 'token' } } },
    ]);
  });

  it('refuses what Kubernetes would refuse, naming the field', () => {
    const cases: [MiniClusterV1alpha1['spec']['containers'][number]['secrets'], RegExp][] = [
      [{ '1BAD': token }, /^spec\.containers\[0\]\.secrets\[1BAD\]: must be an environment variable name/],
      [
        { TOKEN: { name: 'Not_A_Name', key: 'token' } },
        /^spec\.containers\[0\]\.secrets\[TOKEN\]\.name: must be a DNS subdomain/,
      ],
      [
        { TOKEN: { name: 'creds', key: 'a/b' } },
        /^spec\.containers\[0\]\.secrets\[TOKEN\]\.key: must be a Secret key/,
      ],
      [
        { TOKEN: { name: 'creds' } as typeof token },
        /^spec\.containers\[0\]\.secrets\[TOKEN\]\.key: is required$/,
      ],
      [{ TOKEN: { ...token, optional: true } as typeof token }, /secrets\[TOKEN\]\.optional: is not a field/],
    ];
    for (const [secrets, expected] of cases) {
      const problems = problemsOf(miniCluster({ containers: [fluxContainer({ secrets })] }));
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0] ?? '', expected);
    }
  });

  it('refuses a variable set both as a value and from a Secret (Kubernetes would keep one unseen)', () => {
    const problems = problemsOf(
      miniCluster({
        containers: [fluxContainer({ environment: { TOKEN: 'x' }, secrets: { TOKEN: token } })],
      }),
    );
    assert.deepEqual(problems, [
      'spec.containers[0].secrets[TOKEN]: is also set in environment; keep the variable in one of environment and secrets',
    ]);
  });
});

describe('shareProcessNamespace', () => {
  it('is the pod field, set only when asked for', () => {
    const shared = find.job(rendered(miniCluster({ shareProcessNamespace: true })));
    assert.equal(shared.spec?.template.spec?.shareProcessNamespace, true);
    const separate = find.job(rendered(miniCluster()));
    assert.equal(separate.spec?.template.spec?.shareProcessNamespace, undefined);
  });
});

describe('flux.minimalService', () => {
  const indexLabel = 'batch.kubernetes.io/job-completion-index';

  it('puts only the lead broker behind the headless Service and makes every broker its child', () => {
    const objects = rendered(miniCluster({ flux: { minimalService: true } }));
    const service = find.service(objects);
    assert.equal(service.spec?.clusterIP, 'None');
    assert.equal(service.spec?.selector?.[indexLabel], '0');
    assert.equal(service.spec?.selector?.['flux-framework.org/minicluster'], 'flux-sample');
    const script = find.configMap(objects).data?.['entrypoint.sh'] ?? '';
    assert.match(script, / -Stbon\.topo=kary:0 /);
  });

  it('leaves the Service to every pod and the default tree without it', () => {
    const objects = rendered(miniCluster());
    assert.equal(find.service(objects).spec?.selector?.[indexLabel], undefined);
    assert.match(find.configMap(objects).data?.['entrypoint.sh'] ?? '', / -Stbon\.topo=kary:2 /);
  });

  it('refuses a tree in which a broker would connect to a worker, which has no DNS name', () => {
    assert.deepEqual(problemsOf(miniCluster({ flux: { minimalService: true, topology: 'binomial' } })), [
      'spec.flux.topology: must be kary:0 (or unset) with minimalService: only the lead broker has a DNS name, so every broker connects to it; remove topology or minimalService',
    ]);
    assert.deepEqual(problemsOf(miniCluster({ flux: { minimalService: true, topology: 'kary:0' } })), []);
  });
});

describe('v1alpha1 fields left out', () => {
  const leftOut =
    /^is a field of the Go Flux Operator's v1alpha1 API \(.+\) that this operator does not support \(yet\); /;

  it('are refused by name, with what to use instead, by the validator and by the CRD', () => {
    // Every field of the spec is implemented; two of a container are not.
    const given = miniCluster({
      containers: [fluxContainer({ logs: '/tmp/logs', diagnostics: true })],
    } as never);
    const result = validateMiniClusterV1alpha1(given);
    assert.ok(!result.ok);
    assert.deepEqual(
      result.problems.map((problem) => problem.path),
      ['spec.containers[0].logs', 'spec.containers[0].diagnostics'],
    );
    for (const problem of result.problems) assert.match(problem.message, leftOut);
    assert.match(result.problems[0]?.message ?? '', /redirect the output in the command to a file/);

    // Declared so the API server cannot prune them unseen; refused by CEL.
    const spec = miniClusterCrd().spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    const container = spec?.properties?.containers?.items;
    assert.equal(container?.properties?.logs?.type, 'string');
    const rules = container?.['x-kubernetes-validations'] ?? [];
    for (const field of ['logs', 'diagnostics']) {
      const rule = rules.find((candidate) => candidate.rule === `!has(self.${field})`);
      assert.match(
        rule?.message ?? '',
        new RegExp(`^${field} is a field of the Go Flux Operator's v1alpha1 API`),
      );
      assert.equal(rule?.fieldPath, `.${field}`);
    }
  });

  it('names what older Go manifests called a field v1alpha1 renamed', () => {
    assert.deepEqual(
      problemsOf(miniCluster({ containers: [{ ...fluxContainer(), preCommand: 'x' } as never] })),
      [
        'spec.containers[0].preCommand: is not a field: older Go Flux Operator manifests used this name, its v1alpha1 API (and this operator) call it `commands.pre`; rename it',
      ],
    );
  });
});
