/**
 * The Reconciler against an in-memory API (the calls it makes, in order) and caches that read the
 * same store, with objects the test can hide from the caches to make them lag.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject, V1Job, V1Namespace, V1Secret } from '@kubernetes/client-node';
import {
  GROUP,
  KIND,
  LABEL_MINICLUSTER,
  type MiniClusterV1alpha1Spec,
  type MiniClusterStatus,
} from '../../../../src/api/index.ts';
import { Reconciler } from '../../../../src/controllers/minicluster/reconciler.ts';
import type {
  ReconcilerCache,
  ReconcilerClients,
} from '../../../../src/controllers/minicluster/reconciler-deps.ts';
import { BURST_FINALIZER } from '../../../../src/controllers/minicluster/burst-step.ts';
import type { LiveMiniCluster } from '../../../../src/controllers/minicluster/watched-kinds.ts';
import type { RecordedEvent } from '../../../../src/runtime/events.ts';
import { KubeApiError } from '../../../../src/kube/transport.ts';
import type { KubeObject } from '../../../../src/render/index.ts';
import { IMAGE, VIEW_IMAGE } from '../../render/fixtures.ts';
import { toV1alpha1, toV1alpha2 } from '../../../../src/api/index.ts';

const NAMESPACE = 'ns';
const NAME = 'demo';
const NOW = new Date('2026-03-01T12:00:00Z');

function apiError(code: number, message: string): KubeApiError {
  return new KubeApiError(code, JSON.stringify({ kind: 'Status', message }), {});
}

function idOf(kind: string | undefined, namespace: string | undefined, name: string | undefined): string {
  return `${kind ?? ''}/${namespace ?? ''}/${name ?? ''}`;
}

/** The API server: objects by kind/namespace/name, and every call made, in order. */
class FakeApi {
  readonly objects = new Map<string, KubernetesObject>();
  /** Objects the caches do not see yet (kind/namespace/name). */
  readonly hidden = new Set<string>();
  readonly calls: string[] = [];
  statusPatches: { status: Record<string, unknown> }[] = [];
  /** Bodies of the merge patches of the MiniCluster itself (spec.size, finalizers). */
  readonly patches: unknown[] = [];
  miniCluster: LiveMiniCluster;

  constructor(miniCluster: LiveMiniCluster) {
    this.miniCluster = miniCluster;
  }

  put(object: KubernetesObject, options: { hidden?: boolean } = {}): void {
    const id = idOf(object.kind, object.metadata?.namespace, object.metadata?.name);
    this.objects.set(id, structuredClone(object));
    if (options.hidden) this.hidden.add(id);
  }

  readonly clients: ReconcilerClients = {
    objects: {
      apply: async <T extends KubernetesObject>(object: T, _manager: string, dryRun = false) => {
        this.calls.push(`${dryRun ? 'dry-run' : 'apply'} ${object.kind}/${object.metadata?.name}`);
        if (!dryRun) this.put({ ...object, metadata: { ...object.metadata, resourceVersion: '1' } });
        return object;
      },
    },
    core: {
      readNamespace: async ({ name }) => {
        this.calls.push(`get Namespace/${name}`);
        const found = this.objects.get(idOf('Namespace', undefined, name));
        if (!found) throw apiError(404, `namespaces "${name}" not found`);
        return structuredClone(found) as V1Namespace;
      },
      readNamespacedSecret: async ({ name, namespace }) => {
        const found = this.objects.get(idOf('Secret', namespace, name));
        if (!found) throw apiError(404, `secrets "${name}" not found`);
        return structuredClone(found) as V1Secret;
      },
      createNamespacedSecret: async ({ namespace, body }) => {
        this.calls.push(`create Secret/${body.metadata?.name}`);
        if (this.objects.has(idOf('Secret', namespace, body.metadata?.name))) {
          throw apiError(409, `secrets "${body.metadata?.name}" already exists`);
        }
        this.put({ ...body, kind: 'Secret', metadata: { ...body.metadata, resourceVersion: '1' } });
        return body;
      },
      patchPersistentVolume: async ({ name }) => {
        this.calls.push(`patch PersistentVolume/${name}`);
        return {};
      },
      deleteNamespacedSecret: async ({ name, namespace }) => {
        this.calls.push(`delete Secret/${name}`);
        this.objects.delete(idOf('Secret', namespace, name));
        return {};
      },
      deleteNamespacedService: async ({ name, namespace }) => {
        this.calls.push(`delete Service/${name}`);
        this.objects.delete(idOf('Service', namespace, name));
        return {};
      },
    },
    apps: {
      deleteNamespacedDeployment: async ({ name }) => {
        this.calls.push(`delete Deployment/${name}`);
        return {};
      },
    },
    custom: {
      patchNamespacedCustomObjectStatus: async ({ name, body }) => {
        this.calls.push(`status MiniCluster/${name}`);
        this.statusPatches.push(body as { status: Record<string, unknown> });
        return {};
      },
      patchNamespacedCustomObject: async ({ name, body }) => {
        this.calls.push(`patch MiniCluster/${name}`);
        this.patches.push(body);
        return {};
      },
      deleteNamespacedCustomObject: async ({ name }) => {
        this.calls.push(`delete MiniCluster/${name}`);
        return {};
      },
      // Kueue's Workloads (the queue step reads them for a suspended Job with a queue label).
      listNamespacedCustomObject: async ({ plural, labelSelector }) => {
        this.calls.push(`list ${plural} ${labelSelector ?? ''}`);
        return { items: this.workloads };
      },
    },
  };
  /** What listing Kueue's Workloads answers. */
  workloads: unknown[] = [];

  private reader<T extends KubernetesObject>(kind: string) {
    return {
      get: (name: string, namespace: string): T | undefined => {
        const id = idOf(kind, namespace || undefined, name);
        return this.hidden.has(id) ? undefined : (this.objects.get(id) as T | undefined);
      },
    };
  }

  readonly cache: ReconcilerCache = {
    miniClusters: {
      get: (name, namespace) => (name === NAME && namespace === NAMESPACE ? this.miniCluster : undefined),
    },
    jobs: this.reader<V1Job>('Job'),
    secrets: this.reader<V1Secret>('Secret'),
    children: new Map(
      [
        'ConfigMap',
        'Secret',
        'Service',
        'Job',
        'Deployment',
        'PersistentVolume',
        'PersistentVolumeClaim',
      ].map((kind) => [kind, this.reader<KubeObject>(kind)]),
    ),
    podsOf: () => [],
  };

  /** The status the last patch wrote (what the next pass's cache shows). */
  get lastStatus(): Record<string, unknown> | undefined {
    return this.statusPatches.at(-1)?.status;
  }
}

/** A MiniCluster written as v1alpha1, as the API server hands it to the controller: in the hub's version. */
function liveMiniCluster(spec: Partial<MiniClusterV1alpha1Spec> | Record<string, unknown>): LiveMiniCluster {
  return toV1alpha2({
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: { name: NAME, namespace: NAMESPACE, uid: 'uid-1', generation: 1 },
    spec: { containers: [{ image: IMAGE, command: 'hostname' }], ...spec },
  }) as unknown as LiveMiniCluster;
}

function harness(spec: Partial<MiniClusterV1alpha1Spec> | Record<string, unknown>) {
  const api = new FakeApi(liveMiniCluster(spec));
  const events: RecordedEvent[] = [];
  const steps: string[] = [];
  /** How many API calls were made when each step ended. */
  const callsAfter = new Map<string, number>();
  /** The writes among the calls, as `verb Kind` (dry runs and events are not). */
  const writes = () =>
    api.calls
      .filter((call) => /^(apply|create|status|delete|patch) /.test(call))
      .map((call) => call.replace(/\/.*$/, ''));
  const reconciler = new Reconciler({
    clients: api.clients,
    cache: api.cache,
    recorder: {
      record: async (_target, event) => {
        api.calls.push(`event ${event.reason}`);
        events.push(event);
      },
    },
    now: () => NOW,
    fluxViewImage: VIEW_IMAGE,
    observeStep: (step) => {
      steps.push(step);
      callsAfter.set(step, api.calls.length);
    },
  });
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log = {
    info: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: 'info', fields, message }),
    warn: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: 'warn', fields, message }),
  };
  const reconcile = async () => {
    steps.length = 0;
    callsAfter.clear();
    const result = await reconciler.reconcile(`${NAMESPACE}/${NAME}`, log);
    // What the cache shows next: the status written.
    const status = api.lastStatus;
    if (status) api.miniCluster = { ...api.miniCluster, status: status as MiniClusterStatus };
    return result;
  };
  return { api, events, writes, steps, callsAfter, lines, reconcile };
}

function readyCondition(status: Record<string, unknown> | undefined) {
  const conditions = (status?.conditions ?? []) as {
    type: string;
    status: string;
    reason: string;
    message: string;
  }[];
  return conditions.find((condition) => condition.type === 'Ready');
}

const ALL_STEPS = [
  'validate',
  'host-storage',
  'user-secrets',
  'keys',
  'scale',
  'queue',
  'render',
  'prune',
  'apply',
  'volumes',
  'burst',
  'status',
  'cleanup',
];

describe('Reconciler', () => {
  it('stops an invalid spec at validate: the condition names the field, and status is the only write', async () => {
    const { api, steps, writes, reconcile } = harness({ size: -2 });
    const result = await reconcile();
    assert.deepEqual(api.calls, [`status MiniCluster/${NAME}`, 'event InvalidSpec']);
    assert.deepEqual(writes(), ['status MiniCluster']);
    const ready = readyCondition(api.lastStatus);
    assert.equal(ready?.reason, 'InvalidSpec');
    assert.match(ready?.message ?? '', /spec\.size/);
    assert.deepEqual(result.applied, []);
    assert.deepEqual(steps, ['validate', 'status', 'cleanup']);
  });

  describe('host storage (docs/security.md)', () => {
    const rootVolume = {
      size: 1,
      volumes: { root: { storageClass: 'hostpath', path: '/' } },
      containers: [{ image: IMAGE, command: 'hostname', volumes: { root: { path: '/host' } } }],
    };
    const namespace = (labels: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NAMESPACE, labels },
    });

    it('refuses a hostpath volume at / in a namespace without the label: nothing is written but status, and the condition names the field and the fix', async () => {
      const { api, steps, writes, reconcile } = harness(rootVolume);
      api.put(namespace({ team: 'a' }));
      const result = await reconcile();
      assert.deepEqual(steps, ['validate', 'host-storage', 'status', 'cleanup']);
      assert.deepEqual(writes(), ['status MiniCluster']);
      assert.deepEqual(result.applied, []);
      assert.equal(result.requeueAfterMs, 30_000);
      const ready = readyCondition(api.lastStatus);
      assert.equal(ready?.status, 'False');
      assert.equal(ready?.reason, 'HostStorageNotAllowed');
      assert.match(ready?.message ?? '', /^spec\.volumes\.root \(storageClass hostpath, path \/\)/);
      assert.match(
        ready?.message ?? '',
        /kubectl label namespace ns flux-framework\.org\/host-storage=allowed/,
      );
      assert.match(ready?.message ?? '', /flux-operator install --allow-host-storage ns/);
    });

    it('refuses a v1alpha2 hostPath and csiDriver container volume the same way', async () => {
      const { api, reconcile } = harness({});
      api.miniCluster = toV1alpha1({
        apiVersion: `${GROUP}/v1alpha2`,
        kind: KIND,
        metadata: { name: NAME, namespace: NAMESPACE, uid: 'uid-1', generation: 1 },
        spec: {
          size: 1,
          containers: [
            {
              image: IMAGE,
              command: 'hostname',
              volumes: {
                etc: { path: '/etc-host', hostPath: '/etc' },
                vol: { path: '/v', csiDriver: 'x.csi.io' },
              },
            },
          ],
        },
      }) as unknown as LiveMiniCluster;
      api.put(namespace({}));
      const result = await reconcile();
      assert.deepEqual(result.applied, []);
      const ready = readyCondition(api.lastStatus);
      assert.equal(ready?.reason, 'HostStorageNotAllowed');
      assert.match(ready?.message ?? '', /spec\.containers\[0\]\.volumes\.etc\.hostPath/);
      assert.match(ready?.message ?? '', /spec\.containers\[0\]\.volumes\.vol\.csiDriver/);
    });

    const nodeAccess = (labels: Record<string, string>) => {
      const run = harness({});
      run.api.miniCluster = toV1alpha1({
        apiVersion: `${GROUP}/v1alpha2`,
        kind: KIND,
        metadata: { name: NAME, namespace: NAMESPACE, uid: 'uid-1', generation: 1 },
        spec: {
          size: 1,
          pod: { hostPID: true },
          containers: [
            { image: IMAGE, command: 'nsenter -t 1 -a true', securityContext: { privileged: true } },
          ],
        },
      }) as unknown as LiveMiniCluster;
      run.api.put(namespace(labels));
      return run;
    };

    it('refuses v1alpha2 hostPID and a privileged container (from the conversion`s annotation too) in a namespace without the label', async () => {
      const { api, steps, writes, reconcile } = nodeAccess({});
      const result = await reconcile();
      assert.deepEqual(steps, ['validate', 'host-storage', 'status', 'cleanup']);
      assert.deepEqual(writes(), ['status MiniCluster']);
      assert.deepEqual(result.applied, []);
      const ready = readyCondition(api.lastStatus);
      assert.equal(ready?.reason, 'NodeAccessNotAllowed');
      assert.match(
        ready?.message ?? '',
        /^spec\.pod\.hostPID, spec\.containers\[0\]\.securityContext\.privileged: access to the node itself/,
      );
      assert.match(
        ready?.message ?? '',
        /kubectl label namespace ns flux-framework\.org\/host-storage=allowed/,
      );
    });

    it('runs hostPID and a privileged container in a namespace labelled to allow it', async () => {
      const { api, steps, reconcile } = nodeAccess({ 'flux-framework.org/host-storage': 'allowed' });
      const result = await reconcile();
      assert.deepEqual(steps, ALL_STEPS);
      assert.ok(
        result.applied.some((applied) => applied.startsWith('Job/')),
        JSON.stringify(result.applied),
      );
      assert.notEqual(readyCondition(api.lastStatus)?.reason, 'NodeAccessNotAllowed');
    });

    it('runs it in a namespace labelled flux-framework.org/host-storage=allowed', async () => {
      const { api, steps, reconcile } = harness(rootVolume);
      api.put(namespace({ 'flux-framework.org/host-storage': 'allowed' }));
      const result = await reconcile();
      assert.deepEqual(steps, ALL_STEPS);
      assert.ok(
        result.applied.includes(`PersistentVolume/${NAMESPACE}.${NAME}.root`),
        JSON.stringify(result.applied),
      );
      assert.notEqual(readyCondition(api.lastStatus)?.reason, 'HostStorageNotAllowed');
    });

    it('reads no namespace for a MiniCluster without host storage', async () => {
      const { api, reconcile } = harness({});
      await reconcile();
      assert.ok(!api.calls.some((call) => call.startsWith('get Namespace')), JSON.stringify(api.calls));
    });
  });

  it('runs a v1alpha2 MiniCluster read as its v1alpha1 form with Flux from the view (kept in the conversion`s annotation)', async () => {
    const { api, reconcile } = harness({});
    const v1alpha2 = {
      apiVersion: `${GROUP}/v1alpha2`,
      kind: KIND,
      metadata: { name: NAME, namespace: NAMESPACE, uid: 'uid-1', generation: 1 },
      spec: { size: 2, containers: [{ image: IMAGE, command: 'hostname' }] },
    };
    // What the operator reads: the object as v1alpha1, the view kept in the conversion's annotation.
    api.miniCluster = toV1alpha1(v1alpha2) as unknown as LiveMiniCluster;
    const result = await reconcile();
    assert.notEqual(readyCondition(api.lastStatus)?.reason, 'InvalidSpec');
    assert.ok(result.applied.includes(`Job/${NAME}`), JSON.stringify(result.applied));
    const job = api.objects.get(`Job/${NAMESPACE}/${NAME}`) as V1Job;
    const viewInit = job.spec?.template.spec?.initContainers?.[0];
    // The operator's Flux view image, since the MiniCluster names none.
    assert.equal(viewInit?.image, VIEW_IMAGE);
    // v1alpha2's brokers prefer a node each.
    assert.ok(job.spec?.template.spec?.affinity?.podAntiAffinity);

    // The same MiniCluster with Flux in its image has no init container.
    const inImage = harness({});
    inImage.api.miniCluster = toV1alpha1({
      ...v1alpha2,
      spec: { ...v1alpha2.spec, flux: { container: { disable: true } } },
    }) as unknown as LiveMiniCluster;
    await inImage.reconcile();
    const plain = inImage.api.objects.get(`Job/${NAMESPACE}/${NAME}`) as V1Job;
    assert.ok(plain.spec?.template.spec?.containers.length);
    assert.equal(plain.spec?.template.spec?.initContainers, undefined);
  });

  it('renders a v1alpha1 MiniCluster`s Job as v1alpha1 did: Flux in its image, no init container, no affinity', async () => {
    const { api, reconcile } = harness({ size: 2 });
    await reconcile();
    const job = api.objects.get(`Job/${NAMESPACE}/${NAME}`) as V1Job;
    const pod = job.spec?.template.spec;
    assert.equal(pod?.initContainers, undefined);
    assert.equal(pod?.affinity, undefined);
    assert.deepEqual(pod?.containers[0]?.command, ['/bin/bash', '/flux_operator/entrypoint.sh']);
  });

  it("waits for a user's Secret that is not there: no child is written, and it looks again", async () => {
    const { api, steps, reconcile } = harness({ flux: { mungeSecret: 'my-munge' } });
    const result = await reconcile();
    assert.equal(result.requeueAfterMs, 10_000);
    assert.deepEqual(result.applied, []);
    assert.deepEqual(
      api.calls.filter((call) => !call.startsWith('status ') && !call.startsWith('event ')),
      [],
    );
    const ready = readyCondition(api.lastStatus);
    assert.equal(ready?.reason, 'SecretMissing');
    assert.match(ready?.message ?? '', /^spec\.flux\.mungeSecret: Secret ns\/my-munge does not exist/);
    assert.deepEqual(steps, ['validate', 'host-storage', 'user-secrets', 'status', 'cleanup']);
  });

  it('goes on once the Secret is there with its key', async () => {
    const { api, reconcile } = harness({ flux: { mungeSecret: 'my-munge' } });
    api.put(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'my-munge', namespace: NAMESPACE },
        data: { 'munge.key': Buffer.from('k'.repeat(1024)).toString('base64') },
      } as V1Secret,
      { hidden: true },
    );
    const result = await reconcile();
    assert.ok(
      result.applied.some((id) => id.startsWith('Job/')),
      JSON.stringify(result.applied),
    );
  });

  it('creates the key Secrets of a new MiniCluster, then its children, the Job last, then writes status once', async () => {
    const { api, steps, reconcile } = harness({ size: 2 });
    const result = await reconcile();
    const creates = api.calls.filter((call) => call.startsWith('create '));
    assert.deepEqual(creates.sort(), [`create Secret/${NAME}-curve-cert`, `create Secret/${NAME}-munge-key`]);
    const jobApply = api.calls.indexOf(`apply Job/${NAME}`);
    const status = api.calls.indexOf(`status MiniCluster/${NAME}`);
    assert.ok(jobApply > 0, api.calls.join('\n'));
    for (const call of api.calls.slice(0, jobApply)) {
      assert.doesNotMatch(call, /^(apply|create) Job\//, 'nothing applies the Job before the rest');
    }
    assert.ok(api.calls.slice(0, jobApply).some((call) => call.startsWith('apply ConfigMap/')));
    assert.ok(status > jobApply, 'status after the children');
    assert.equal(api.calls.filter((call) => call.startsWith('status ')).length, 1);
    assert.ok(
      api.calls.slice(status + 1).every((call) => call.startsWith('event ')),
      'events after status',
    );
    assert.ok(result.applied.includes(`Job/${NAME}`));
    assert.deepEqual(steps, ALL_STEPS);

    // The next pass finds everything as it was made: it writes nothing.
    api.calls.length = 0;
    const again = await reconcile();
    assert.deepEqual(again.applied, []);
    assert.deepEqual(api.calls, []);
  });

  it("deletes the RESTful server's Service and credentials Secret once the spec stops serving it, and nothing else", async () => {
    const restful = { interactive: true, containers: [{ image: IMAGE }], fluxRestful: {} };
    const { api, reconcile } = harness(restful);
    await reconcile();
    const restfulName = `${NAME}-restful`;
    assert.ok(api.objects.has(idOf('Secret', NAMESPACE, restfulName)), api.calls.join('\n'));
    assert.ok(api.objects.has(idOf('Service', NAMESPACE, restfulName)), api.calls.join('\n'));
    // Someone else's Secret of that name is never the operator's to delete (no controller reference).
    api.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unrelated', namespace: NAMESPACE } });

    api.miniCluster = {
      ...api.miniCluster,
      spec: { interactive: true, containers: [{ image: IMAGE }] } as never,
    };
    api.calls.length = 0;
    await reconcile();
    const deletes = api.calls.filter((call) => call.startsWith('delete '));
    assert.deepEqual(deletes.sort(), [`delete Secret/${restfulName}`, `delete Service/${restfulName}`]);
    assert.ok(
      api.calls.indexOf(`delete Secret/${restfulName}`) <
        api.calls.findIndex((call) => call.startsWith('apply ')),
      'pruned before anything is applied',
    );
    assert.equal(api.objects.has(idOf('Secret', NAMESPACE, restfulName)), false);
    assert.ok(api.objects.has(idOf('Secret', NAMESPACE, 'unrelated')));
    assert.ok(api.objects.has(idOf('Secret', NAMESPACE, `${NAME}-curve-cert`)), 'the keys stay');

    // The next pass has nothing left to delete.
    api.calls.length = 0;
    await reconcile();
    assert.deepEqual(
      api.calls.filter((call) => call.startsWith('delete ')),
      [],
    );
  });

  it('adopts a key Secret that appeared meanwhile and starts the pass again with its keys', async () => {
    const { api, steps, reconcile } = harness({ size: 1 });
    const certificate = 'CERTIFICATE-MADE-BY-ANOTHER-INSTANCE\n';
    const theirs = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${NAME}-curve-cert`, namespace: NAMESPACE },
      data: { 'curve.cert': Buffer.from(certificate).toString('base64') },
    } as V1Secret;
    api.put(theirs, { hidden: true });

    const first = await reconcile();
    assert.equal(first.requeueAfterMs, 0);
    assert.ok(api.calls.includes(`create Secret/${NAME}-curve-cert`));
    assert.ok(
      !api.calls.some((call) => call.startsWith('apply Job/')),
      'no Job from keys about to be dropped',
    );
    assert.ok(!api.calls.some((call) => call.startsWith('status ')), 'no status: the pass starts again');
    assert.deepEqual(steps, ALL_STEPS.slice(0, ALL_STEPS.indexOf('apply') + 1));

    api.calls.length = 0;
    const second = await reconcile();
    assert.equal(second.requeueAfterMs, undefined);
    assert.ok(!api.calls.includes(`create Secret/${NAME}-curve-cert`), 'not created twice');
    assert.ok(api.calls.includes(`apply Secret/${NAME}-curve-cert`), 'applied, with the keys it holds');
    const stored = api.objects.get(idOf('Secret', NAMESPACE, `${NAME}-curve-cert`)) as V1Secret;
    assert.equal(stored.data?.['curve.cert'], theirs.data?.['curve.cert'], 'its keys are kept');
    assert.ok(second.applied.includes(`Job/${NAME}`));
  });

  it('deletes a finished MiniCluster with spec.cleanup in the cleanup step, after its status', async () => {
    for (const cleanup of [true, false]) {
      const { api, callsAfter, reconcile } = harness({ size: 1, cleanup });
      await reconcile();
      const job = api.objects.get(idOf('Job', NAMESPACE, NAME)) as V1Job;
      assert.equal(job.metadata?.labels?.[LABEL_MINICLUSTER], NAME);
      api.put({
        ...job,
        status: { conditions: [{ type: 'Complete', status: 'True' }], succeeded: 1 },
      } as V1Job);
      api.calls.length = 0;
      await reconcile();
      assert.equal(api.lastStatus?.summary, 'Succeeded');
      const deleted = api.calls.indexOf(`delete MiniCluster/${NAME}`);
      if (!cleanup) {
        assert.equal(deleted, -1, 'kept without spec.cleanup');
        continue;
      }
      assert.equal(api.calls.filter((call) => call.startsWith('delete ')).length, 1);
      // Written by the cleanup step, after the status step wrote status and its events.
      assert.ok(deleted > api.calls.indexOf(`status MiniCluster/${NAME}`));
      assert.equal(callsAfter.get('status'), deleted);
      assert.equal(callsAfter.get('cleanup'), deleted + 1);

      // The pass after that sees no change of status, and deletes nothing again.
      api.calls.length = 0;
      await reconcile();
      assert.deepEqual(api.calls, []);
    }
  });

  it('runs the deletion steps for a MiniCluster being deleted: its burst finalizer released, nothing else written', async () => {
    const { api, steps, writes, reconcile } = harness({ size: 1 });
    const deleting = (finalizers: string[]): LiveMiniCluster => ({
      ...api.miniCluster,
      metadata: { ...api.miniCluster.metadata, resourceVersion: '7', deletionTimestamp: NOW, finalizers },
    });
    api.miniCluster = deleting(['example.com/other', BURST_FINALIZER]);
    // No burst environment: nothing can be removed elsewhere, and the deletion is not held forever.
    assert.deepEqual(await reconcile(), { applied: [] });
    assert.deepEqual(steps, ['remove-bursts', 'release-finalizer']);
    assert.deepEqual(api.calls, [`patch MiniCluster/${NAME}`]);
    assert.deepEqual(api.patches, [
      { metadata: { finalizers: ['example.com/other'], resourceVersion: '7' } },
    ]);
    assert.deepEqual(writes(), ['patch MiniCluster']);

    api.miniCluster = deleting(['example.com/other']);
    api.calls.length = 0;
    assert.deepEqual(await reconcile(), { applied: [] });
    assert.deepEqual(steps, ['remove-bursts', 'release-finalizer']);
    assert.deepEqual(api.calls, [], 'no finalizer of ours: nothing to write');
  });
});
