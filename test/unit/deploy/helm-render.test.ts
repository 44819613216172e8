// Lints and renders deploy/helm/flux-operator with a real Helm, built from its Go module by
// hack/build-helm.sh on first use (a few minutes once, then cached under ~/.cache/flux-operator/helm).
// With the default values the chart renders the same objects as deploy/install.yaml, up to Helm's
// labels and the CRD (which Helm installs from crds/, not from the templates).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { V1Deployment } from '@kubernetes/client-node';
import { OPERATOR_NAMESPACE, installObjects } from '../../../src/deploy/index.ts';
import { REPOSITORY_ROOT } from '../../../hack/generate.ts';
import { CHART_PATH } from '../../../hack/deploy-files.ts';

const chart = join(REPOSITORY_ROOT, CHART_PATH);
let helmPath = '';

function helm(...args: string[]): string {
  return execFileSync(helmPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: { template?: { metadata?: { labels?: Record<string, string> } }; selector?: unknown };
}

function render(...sets: string[]): Obj[] {
  const text = helm('template', 'flux-operator', chart, '--namespace', OPERATOR_NAMESPACE, ...sets.flatMap((s) => ['--set', s]));
  return parseAllDocuments(text)
    .map((document) => document.toJS() as Obj | null)
    .filter((object): object is Obj => object !== null);
}

/** The object without the labels Helm adds (and the selector, which has Helm's instance label). */
function withoutLabels(object: Obj): unknown {
  const copy = structuredClone(object);
  delete copy.metadata.labels;
  if (copy.spec?.template?.metadata) delete copy.spec.template.metadata.labels;
  if (copy.spec) delete copy.spec.selector;
  return copy;
}

function containerArgs(objects: Obj[]): string[] {
  const deployment = objects.find((object) => object.kind === 'Deployment') as V1Deployment | undefined;
  return deployment?.spec?.template.spec?.containers[0]?.args ?? [];
}

describe('Helm chart rendered by helm', { timeout: 15 * 60_000 }, () => {
  before(() => {
    helmPath = execFileSync('bash', [join(REPOSITORY_ROOT, 'hack/build-helm.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  });

  it('passes helm lint --strict', () => {
    const output = helm('lint', '--strict', chart);
    assert.match(output, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders install.yaml objects (but the Namespace and the CRD) with the default values', () => {
    const rendered = render();
    const expected = installObjects().filter((o) => o.kind !== 'Namespace' && o.kind !== 'CustomResourceDefinition');
    assert.deepEqual(
      rendered.map((object) => `${object.kind}/${object.metadata.name}`).sort(),
      expected.map((object) => `${object.kind}/${object.metadata.name}`).sort(),
    );
    for (const object of expected) {
      const match = rendered.find((o) => o.kind === object.kind && o.metadata.name === object.metadata.name);
      assert.deepEqual(withoutLabels(match as Obj), withoutLabels(JSON.parse(JSON.stringify(object)) as Obj), object.kind);
    }
  });

  it('selects the Deployment pods by labels its template carries', () => {
    const deployment = render().find((object) => object.kind === 'Deployment') as V1Deployment;
    const labels = deployment.spec?.template.metadata?.labels ?? {};
    for (const [key, value] of Object.entries(deployment.spec?.selector.matchLabels ?? {})) {
      assert.equal(labels[key], value, key);
    }
    assert.equal(labels['app.kubernetes.io/component'], 'controller');
  });

  it('turns the values into operator flags, and drops the Lease Role without leader election; watching namespaces, a Role in each and a narrow ClusterRole', () => {
    const objects = render(
      'leaderElect=false',
      'logLevel=debug',
      'concurrency=8',
      'watchNamespaces={a,b}',
      'fluxViewImage=example.com/flux-view:1',
      'leaveCrdConversion=true',
      'hostStorageNamespaces={c}',
    );
    assert.deepEqual(containerArgs(objects), [
      'run',
      '--metrics-addr=:8443',
      '--metrics-secure',
      '--health-addr=:8081',
      '--webhook-addr=:9443',
      '--webhook-service=flux-operator-system/flux-operator-webhook',
      '--flux-view-image=example.com/flux-view:1',
      '--leave-crd-conversion',
      '--log-level=debug',
      '--concurrency=8',
      '--namespace=a',
      '--namespace=b',
      '--allow-host-storage=c',
    ]);
    assert.ok(!objects.some((object) => object.metadata.name.endsWith('leader-election')));
    const where = (kind: string) =>
      objects
        .filter((object) => object.kind === kind)
        .map((object) => `${object.metadata.namespace ?? ''}/${object.metadata.name}`)
        .sort();
    assert.deepEqual(where('Role'), ['a/flux-operator', 'b/flux-operator', 'flux-operator-system/flux-operator-webhook-cert']);
    assert.deepEqual(where('RoleBinding'), where('Role'));
    assert.deepEqual(where('ClusterRole'), ['/flux-operator-cluster', '/flux-operator-metrics-reader']);
    const watching = installObjects({ watchNamespaces: ['a', 'b'] });
    const rulesOf = (list: readonly unknown[], kind: string, name: string) =>
      JSON.parse(
        JSON.stringify(
          (list as Obj[]).find((o) => o.kind === kind && o.metadata.name === name) as unknown as { rules: unknown },
        ),
      ).rules;
    assert.deepEqual(
      rulesOf(objects, 'ClusterRole', 'flux-operator-cluster'),
      rulesOf(watching, 'ClusterRole', 'flux-operator-cluster-flux-operator-system'),
    );
    assert.deepEqual(rulesOf(objects, 'Role', 'flux-operator'), rulesOf(watching, 'Role', 'flux-operator'));
    // The namespaces of hostStorageNamespaces are left out of the policy's binding.
    const binding = objects.find((object) => object.kind === 'ValidatingAdmissionPolicyBinding') as unknown as {
      spec: { matchResources: { namespaceSelector: { matchExpressions: unknown[] } } };
    };
    assert.deepEqual(binding.spec.matchResources.namespaceSelector.matchExpressions, [
      { key: 'flux-framework.org/host-storage', operator: 'NotIn', values: ['allowed'] },
      { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['c'] },
    ]);
  });

  it('uses the image, replicas and resources values', () => {
    const objects = render('image.repository=example.com/op', 'image.tag=dev', 'replicas=2', 'resources.limits.memory=1Gi');
    const deployment = objects.find((object) => object.kind === 'Deployment') as V1Deployment;
    assert.equal(deployment.spec?.replicas, 2);
    const container = deployment.spec?.template.spec?.containers[0];
    assert.equal(container?.image, 'example.com/op:dev');
    // The operator installs this same image on burst targets.
    assert.deepEqual(
      container?.env?.find((variable) => variable.name === 'OPERATOR_IMAGE'),
      { name: 'OPERATOR_IMAGE', value: 'example.com/op:dev' },
    );
    assert.deepEqual(container?.resources, { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '1Gi' } });
  });

  it('adds the PodDisruptionBudget of install.yaml with two replicas, and none with one', () => {
    assert.ok(!render().some((object) => object.kind === 'PodDisruptionBudget'));
    const budget = render('replicas=2').find((object) => object.kind === 'PodDisruptionBudget');
    assert.ok(budget);
    const expected = installObjects({ replicas: 2 }).find((object) => object.kind === 'PodDisruptionBudget') as
      | { spec?: { minAvailable?: number } }
      | undefined;
    assert.equal((budget.spec as { minAvailable?: number }).minAvailable, expected?.spec?.minAvailable);
    const deployment = render('replicas=2').find((object) => object.kind === 'Deployment') as V1Deployment;
    assert.deepEqual(budget.spec?.selector, deployment.spec?.selector);
  });
});
