// MiniClusters under real Kueue v0.17.0 (its own manager and webhooks, workbench/src/localcluster/kueue), brought
// up on the shared default cluster for these scenarios only and taken off at their end, webhooks first,
// so that no other test's Job or pod meets them afterwards. Capacity that is only counted comes from
// the kwok nodes (their pods run until told to exit); real Flux runs on the real node where the outcome
// must be real (preemption then completion, the Go suite's hello-world).
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { KubernetesListObject, KubernetesObject, V1Job } from '@kubernetes/client-node';
import { LABEL_KUEUE_PRIORITY_CLASS, LABEL_QUEUE_NAME } from '../../../src/api/index.ts';
import type { KueueWorkload } from '../../../src/controllers/minicluster/queue-status.ts';
import { WORKLOADS } from '../../../src/controllers/minicluster/queue-step.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { KUEUE_WAIT_FOR_PODS_READY } from '../../../workbench/src/localcluster/kueue/config.ts';
import {
  kubeconfigPath,
  kwokClusterDir,
  kwokWorkdir,
  stateDir,
} from '../../../workbench/src/localcluster/paths.ts';
import { kueueDetach, kueueUp } from '../../../workbench/src/localcluster/kueue/index.ts';
import { cluster, finishPods, waitFor, within } from '../../harness/cluster.ts';
import { expectedGoLog, goTestMiniCluster } from '../../harness/go-v1alpha2-cases.ts';
import {
  applyMiniCluster,
  conditionOf,
  miniClusterObject,
  readStatus,
  scaleMiniCluster,
  waitForCondition,
} from '../../harness/operator.ts';
import { asV1alpha2 } from '../../harness/minicluster-v1alpha2.ts';
import { watchPods, type PodWatch } from '../../harness/pod-watch.ts';
import { leadLog, realMiniCluster, scenario } from '../../harness/real-node.ts';

const FLAVOR = 'fo-e2e-flavor';
const LOW = 'fo-e2e-low';
const HIGH = 'fo-e2e-high';
const LOCAL_QUEUE = 'minis';
const FIELD_MANAGER = 'flux-operator-tests';
/** The ClusterQueues of the scenarios, each its own quota: cpu, and whether it preempts by priority. */
const CLUSTER_QUEUES = {
  two: { cpu: '8' },
  never: { cpu: '8' },
  grow: { cpu: '8' },
  preempt: { cpu: '1', preempts: true },
  hello: { cpu: '4' },
  ready: { cpu: '1' },
} as const;
type QueueKey = keyof typeof CLUSTER_QUEUES;
const clusterQueueName = (key: QueueKey) => `fo-e2e-${key}`;

function kueueObjects(): KubernetesObject[] {
  const api = 'kueue.x-k8s.io/v1beta2';
  return [
    { apiVersion: api, kind: 'ResourceFlavor', metadata: { name: FLAVOR } },
    {
      apiVersion: api,
      kind: 'WorkloadPriorityClass',
      metadata: { name: LOW },
      value: 10,
    } as KubernetesObject,
    {
      apiVersion: api,
      kind: 'WorkloadPriorityClass',
      metadata: { name: HIGH },
      value: 1000,
    } as KubernetesObject,
    ...Object.entries(CLUSTER_QUEUES).map(
      ([key, queue]) =>
        ({
          apiVersion: api,
          kind: 'ClusterQueue',
          metadata: { name: clusterQueueName(key as QueueKey) },
          spec: {
            namespaceSelector: {},
            ...('preempts' in queue ? { preemption: { withinClusterQueue: 'LowerPriority' } } : {}),
            resourceGroups: [
              {
                coveredResources: ['cpu'],
                flavors: [{ name: FLAVOR, resources: [{ name: 'cpu', nominalQuota: queue.cpu }] }],
              },
            ],
          },
        }) as KubernetesObject,
    ),
  ];
}

async function applyObject(object: KubernetesObject): Promise<void> {
  const { objects } = await cluster();
  await within(`applying ${object.kind} ${object.metadata?.name}`, objects.apply(object, FIELD_MANAGER));
}

/** The LocalQueue `minis` of the scenario's namespace, feeding one ClusterQueue. */
async function localQueue(namespace: string, key: QueueKey): Promise<void> {
  await applyObject({
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'LocalQueue',
    metadata: { name: LOCAL_QUEUE, namespace },
    spec: { clusterQueue: clusterQueueName(key) },
  } as KubernetesObject);
}

/**
 * A MiniCluster on the kwok nodes (its pods only counted, running until told to exit) asking `cpu`
 * per broker, queued in `minis` by its own label.
 */
function kwokMiniCluster(namespace: string, name: string, spec: Record<string, unknown>, cpu: string) {
  const object = miniClusterObject(namespace, name, {
    ...spec,
    containers: [{ image: 'localhost/flux:0.88.0', command: 'hostname', resources: { requests: { cpu } } }],
  });
  (object.metadata as Record<string, unknown>).labels = { [LABEL_QUEUE_NAME]: LOCAL_QUEUE };
  return object;
}

/** A scenario's namespace with its operator, a LocalQueue, and a watch on all its pods from the start. */
async function queuedScenario(t: TestContext, prefix: string, key: QueueKey) {
  const { namespace, clients } = await scenario(t, prefix);
  await localQueue(namespace, key);
  const { transport } = await cluster();
  const pods = watchPods(transport, namespace);
  t.after(() => pods.stop());
  return { namespace, clients, pods };
}

async function jobOf(namespace: string, name: string): Promise<V1Job> {
  const { batch } = await cluster();
  return within(`reading Job ${name}`, batch.readNamespacedJob({ name, namespace }));
}

/** Waits for the Queued condition to be True with a message matching `message`; returns the status. */
function waitForQueued(
  clients: ApiClients,
  namespace: string,
  name: string,
  message: RegExp,
  timeoutMs = 60_000,
) {
  return waitFor(
    async () => {
      const status = await readStatus(clients, namespace, name);
      const queued = conditionOf(status, 'Queued');
      return queued?.status === 'True' && message.test(queued.message) ? status : false;
    },
    { what: `${namespace}/${name} Queued with a message matching ${message}`, timeoutMs },
  );
}

/** The Workloads Kueue made in the namespace (kueue.x-k8s.io/v1beta2), as the operator reads them. */
async function workloadsOf(clients: ApiClients, namespace: string): Promise<KueueWorkload[]> {
  const list = (await within(
    'listing Workloads',
    clients.custom.listNamespacedCustomObject({ ...WORKLOADS, namespace }),
  )) as { items?: KueueWorkload[] };
  return list.items ?? [];
}

/** Pods of `other` the watch saw while `first` had a pod that had not ended or gone yet. */
function overlapping(pods: PodWatch, first: string, other: string): string[] {
  return pods.of(other).flatMap((pod) =>
    pods
      .of(first)
      .filter(
        (running) =>
          running.firstSeenMs <= pod.firstSeenMs &&
          Math.min(running.endedMs ?? Infinity, running.goneMs ?? Infinity) > pod.firstSeenMs,
      )
      .map((running) => `${pod.name} appeared while ${running.name} was there`),
  );
}

export function kueueScenarios(): void {
  describe('under Kueue v0.17.0', { concurrency: 1 }, () => {
    const clusterDir = kwokClusterDir('default');
    const kubeconfig = kubeconfigPath('default');

    before(async () => {
      const t0 = Date.now();
      await kueueUp({
        clusterDir,
        workdir: kwokWorkdir(stateDir()),
        kubeconfig,
        env: process.env,
        progress: (line) => process.stderr.write(`[kueue] ${line}\n`),
      });
      for (const object of kueueObjects()) await applyObject(object);
      process.stderr.write(`[kueue] up with its queues in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    });

    after(async () => {
      // The cluster-wide objects go while Kueue runs (its finalizers hold them until it lets go).
      const { objects } = await cluster();
      for (const object of kueueObjects().reverse()) {
        await within(`deleting ${object.kind}`, objects.delete(object)).catch(() => undefined);
      }
      const { deleted } = await kueueDetach({ clusterDir, kubeconfig });
      assert.equal(deleted.length, 2, `Kueue's two webhook configurations deleted: ${deleted.join(', ')}`);
      const { transport } = await cluster();
      const webhooks = (kind: string) =>
        transport.request<KubernetesListObject<KubernetesObject>>(
          'GET',
          `/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations`,
          { timeoutMs: 30_000 },
        );
      const left = [...(await webhooks('mutating')).items, ...(await webhooks('validating')).items].filter(
        (config) => /kueue/.test(config.metadata?.name ?? ''),
      );
      assert.deepEqual(
        left.map((config) => config.metadata?.name),
        [],
        'no Kueue webhook left behind',
      );
    });

    it('two MiniClusters of 6 CPUs on a queue of 8: the second has no pod while the first runs, then runs', async (t) => {
      const { namespace, clients, pods } = await queuedScenario(t, 'kueue-two', 'two');
      const t0 = Date.now();
      await applyMiniCluster(clients, kwokMiniCluster(namespace, 'first', { size: 3 }, '2'));
      await waitForCondition(clients, namespace, 'first', 'Ready', 'True', 120_000);
      const firstReadyS = (Date.now() - t0) / 1000;
      await applyMiniCluster(clients, kwokMiniCluster(namespace, 'second', { size: 3 }, '2'));
      // Kueue's own reason arrives a moment after its Workload (read again every QUEUE_POLL_MS).
      const queued = await waitForQueued(
        clients,
        namespace,
        'second',
        /^queue minis: waiting for Kueue to admit Workload \S+: .*insufficient unused quota for cpu/,
      );
      assert.equal(queued.summary, 'Queued');
      assert.equal(conditionOf(queued, 'Queued')?.reason, 'Pending');
      assert.equal(conditionOf(queued, 'Ready')?.reason, 'Queued');
      assert.equal((await jobOf(namespace, 'second')).spec?.suspend, true, 'Kueue holds the Job suspended');
      // The first runs for a while with the second queued: nothing of the second may appear.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      assert.deepEqual(pods.of('second'), [], 'no pod of the queued MiniCluster');
      const first = await readStatus(clients, namespace, 'first');
      assert.equal(conditionOf(first, 'Queued')?.reason, 'Admitted');
      assert.match(conditionOf(first, 'Queued')?.message ?? '', /ClusterQueue fo-e2e-two for 3 pods/);

      const t1 = Date.now();
      await finishPods(clients.core, namespace, 'first', 0);
      await waitForCondition(clients, namespace, 'first', 'Succeeded', 'True', 120_000);
      await waitForCondition(clients, namespace, 'second', 'Ready', 'True', 180_000);
      const secondAdmittedS = (Date.now() - t1) / 1000;
      assert.deepEqual(overlapping(pods, 'first', 'second'), []);
      assert.equal(pods.of('second').length, 3, 'the second started as a whole, once');
      await finishPods(clients.core, namespace, 'second', 0);
      await waitForCondition(clients, namespace, 'second', 'Succeeded', 'True', 120_000);
      t.diagnostic(
        `first Ready ${firstReadyS.toFixed(1)} s after apply; second Ready ${secondAdmittedS.toFixed(1)} s after the first's pods were told to exit; pods seen: ${pods.pods.length}`,
      );
    });

    it('a MiniCluster asking more than its queue can ever give stays queued, saying so, with no pod', async (t) => {
      const { namespace, clients, pods } = await queuedScenario(t, 'kueue-never', 'never');
      await applyMiniCluster(clients, kwokMiniCluster(namespace, 'huge', { size: 3 }, '4'));
      const status = await waitForQueued(clients, namespace, 'huge', /can never be admitted/);
      const queued = conditionOf(status, 'Queued');
      assert.equal(queued?.reason, 'Pending');
      assert.match(queued?.message ?? '', /> maximum capacity \(8\)/);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      assert.equal((await readStatus(clients, namespace, 'huge')).summary, 'Queued');
      assert.deepEqual(pods.pods, [], 'no pod at all');
      t.diagnostic(queued?.message ?? '');
    });

    it('a scale-up of an admitted MiniCluster beyond its quota starts no pod outside the admitted count', async (t) => {
      const { namespace, clients, pods } = await queuedScenario(t, 'kueue-grow', 'grow');
      await applyMiniCluster(clients, kwokMiniCluster(namespace, 'grow', { size: 2, maxSize: 6 }, '2'));
      await waitForCondition(clients, namespace, 'grow', 'Ready', 'True', 120_000);
      await scaleMiniCluster(clients, namespace, 'grow', 5);
      const held = await waitFor(
        async () => {
          const status = await readStatus(clients, namespace, 'grow');
          return conditionOf(status, 'Scaling')?.reason === 'WaitingForReadmission' ? status : false;
        },
        { what: 'the Scaling condition to say the size waits for readmission', timeoutMs: 60_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const job = await jobOf(namespace, 'grow');
      assert.equal(job.spec?.parallelism, 2, 'the admitted Job keeps its size');
      assert.equal(job.spec?.suspend, false);
      assert.deepEqual(
        pods
          .of('grow')
          .filter((pod) => pod.index >= 2)
          .map((pod) => pod.name),
        [],
        'no pod beyond the 2 admitted',
      );
      assert.equal(pods.of('grow').length, 2);
      t.diagnostic(conditionOf(held, 'Scaling')?.message ?? '');
      await finishPods(clients.core, namespace, 'grow', 0);
      await waitForCondition(clients, namespace, 'grow', 'Succeeded', 'True', 120_000);
    });

    it('a higher-priority MiniCluster preempts a running lower one, which completes after readmission (real Flux)', async (t) => {
      const { namespace, clients, pods } = await queuedScenario(t, 'kueue-preempt', 'preempt');
      // Flux from the view on a plain image (the Go suite's hello-world, resized and given requests).
      const queuedFlux = async (name: string, priority: string, command: string) => {
        const object = await goTestMiniCluster('hello-world', namespace, 'localhost/plain:bookworm');
        const metadata = object.metadata as Record<string, unknown>;
        metadata.name = name;
        metadata.labels = { [LABEL_QUEUE_NAME]: LOCAL_QUEUE, [LABEL_KUEUE_PRIORITY_CLASS]: priority };
        const spec = object.spec as { size: number; containers: Record<string, unknown>[] };
        spec.size = 2;
        spec.containers = spec.containers.map((container) => ({
          ...container,
          command,
          resources: { requests: { cpu: '400m' } },
        }));
        return object;
      };
      const t0 = Date.now();
      await applyMiniCluster(clients, await queuedFlux('low', LOW, 'bash -c "sleep 20; echo low-finished"'));
      await waitForCondition(clients, namespace, 'low', 'Ready', 'True', 180_000);
      const lowReadyS = (Date.now() - t0) / 1000;
      await applyMiniCluster(clients, await queuedFlux('high', HIGH, 'echo high-finished'));
      const evicted = await waitForQueued(clients, namespace, 'low', /evicted by Kueue \(Preempted/, 120_000);
      assert.equal(conditionOf(evicted, 'Queued')?.reason, 'Preempted');
      await waitForCondition(clients, namespace, 'high', 'Succeeded', 'True', 240_000);
      assert.match(await leadLog(clients, namespace, 'high', 'high'), /^high-finished$/m);
      const low = await waitForCondition(clients, namespace, 'low', 'Succeeded', 'True', 300_000);
      assert.equal(low.summary, 'Succeeded');
      assert.match(await leadLog(clients, namespace, 'low', 'low'), /^low-finished$/m);
      const lowPods = pods.of('low');
      assert.equal(lowPods.length, 4, `low ran twice as a whole: ${lowPods.map((p) => p.name).join(', ')}`);
      t.diagnostic(
        `low Ready ${lowReadyS.toFixed(1)} s after apply; whole run ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    });

    it('a MiniCluster whose pods never become Ready is evicted by waitForPodsReady, stops, and is queued and admitted again', async (t) => {
      const { namespace, clients, pods } = await queuedScenario(t, 'kueue-ready', 'ready');
      const timeoutS = Number.parseInt(KUEUE_WAIT_FOR_PODS_READY.timeout, 10);
      const status = (name: string) =>
        within(`reading ${name}'s status`, readStatus(clients, namespace, name));
      // On the real node, an image that is not there and must not be pulled: the kubelet says
      // ErrImageNeverPull at once and the broker container never starts, as with a mistyped image.
      // v1alpha2 for its imagePullPolicy; no Flux view (flux.container.disable): the one container.
      const object = asV1alpha2(
        realMiniCluster(
          namespace,
          'never-ready',
          { size: 2 },
          {
            image: 'localhost/fo-e2e-not-there:none',
            command: 'hostname',
            container: { imagePullPolicy: 'Never', resources: { requests: { cpu: '100m' } } },
          },
        ),
      );
      (object.metadata as Record<string, unknown>).labels = { [LABEL_QUEUE_NAME]: LOCAL_QUEUE };
      const t0 = Date.now();
      await within('applying never-ready', applyMiniCluster(clients, object));
      const admitted = await waitFor(
        async () => {
          const read = await status('never-ready');
          // Admitted with status True is the moment between Kueue's quota and its unsuspending the Job.
          const queued = conditionOf(read, 'Queued');
          return queued?.reason === 'Admitted' && queued.status === 'False' ? read : false;
        },
        { what: 'never-ready admitted by Kueue and its Job started', timeoutMs: 120_000, intervalMs: 1_000 },
      );
      const admittedMs = Date.now();
      assert.match(conditionOf(admitted, 'Queued')?.message ?? '', /ClusterQueue fo-e2e-ready for 2 pods/);
      // Admitted, its pods are there but not Ready: the Ready condition says why, until Kueue's timeout.
      const stuck = await waitFor(
        async () => {
          const read = await status('never-ready');
          return /ErrImageNeverPull/.test(conditionOf(read, 'Ready')?.message ?? '') ? read : false;
        },
        { what: 'never-ready saying its pods wait for an image', timeoutMs: 90_000, intervalMs: 1_000 },
      );
      assert.equal(conditionOf(stuck, 'Ready')?.status, 'False');
      const firstRun = pods.of('never-ready');
      assert.equal(firstRun.length, 2, 'admitted as a whole');
      assert.ok(
        firstRun.every((pod) => pod.runningMs === undefined),
        'no broker ever ran',
      );

      // Kueue's timeout runs from the admission; the operator reads the eviction from the Workload.
      const evicted = await waitForQueued(
        clients,
        namespace,
        'never-ready',
        /evicted by Kueue \(PodsReadyTimeout/,
        (timeoutS + 120) * 1000,
      );
      const evictedS = (Date.now() - admittedMs) / 1000;
      assert.ok(
        evictedS >= timeoutS - 5,
        `evicted ${evictedS.toFixed(1)} s after admission, not before the timeout`,
      );
      const queued = conditionOf(evicted, 'Queued');
      assert.equal(queued?.reason, 'PodsReadyTimeout');
      assert.match(queued?.message ?? '', /Exceeded the PodsReady timeout/);
      assert.match(
        queued?.message ?? '',
        /not all of its pods were Ready within Kueue's waitForPodsReady timeout/,
      );
      assert.match(queued?.message ?? '', /Find why its pods do not become Ready/);
      assert.equal(evicted.summary, 'Queued');
      assert.equal(conditionOf(evicted, 'Ready')?.reason, 'Queued');
      assert.equal((await jobOf(namespace, 'never-ready')).spec?.suspend, true, 'Kueue suspended the Job');
      await waitFor(() => firstRun.every((pod) => pod.goneMs !== undefined), {
        what: 'the first admission’s pods deleted',
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      const events = await waitFor(
        async () => {
          const { items } = await within('listing events', clients.events.listNamespacedEvent({ namespace }));
          const found = items.filter(
            (event) => event.reason === 'Evicted' && event.regarding?.name === 'never-ready',
          );
          return found.length > 0 ? found : false;
        },
        { what: 'the Evicted event of never-ready', timeoutMs: 60_000, intervalMs: 1_000 },
      );
      assert.equal(events[0]?.type, 'Warning');
      assert.match(events[0]?.note ?? '', /PodsReadyTimeout/);

      // Kueue queues it again after its backoff (10 s the first time) and admits it, as a whole, again.
      const again = await waitFor(
        async () => {
          const read = await status('never-ready');
          const secondRun = pods.of('never-ready').filter((pod) => !firstRun.includes(pod));
          const queued = conditionOf(read, 'Queued');
          return queued?.reason === 'Admitted' && queued.status === 'False' && secondRun.length === 2
            ? read
            : false;
        },
        {
          what: 'never-ready admitted again, with new pods',
          timeoutMs: (KUEUE_WAIT_FOR_PODS_READY.requeuingStrategy.backoffBaseSeconds + 120) * 1000,
          intervalMs: 1_000,
        },
      );
      const readmittedS = (Date.now() - admittedMs) / 1000 - evictedS;
      assert.equal(conditionOf(again, 'Queued')?.status, 'False');
      const [workload] = await workloadsOf(clients, namespace);
      assert.equal(workload?.status?.requeueState?.count, 1, 'evicted once by PodsReadyTimeout');
      t.diagnostic(
        `admitted ${((admittedMs - t0) / 1000).toFixed(1)} s after apply; evicted ${evictedS.toFixed(1)} s after admission (timeout ${timeoutS} s); admitted again ${readmittedS.toFixed(1)} s after the eviction; pods seen ${pods.of('never-ready').length}`,
      );
      t.diagnostic(`Queued: ${queued?.reason}: ${queued?.message ?? ''}`);
      t.diagnostic(`event: ${events[0]?.type} ${events[0]?.reason}: ${events[0]?.note ?? ''}`);
    });

    it('the Go suite hello-world (v1alpha2) with the queue in jobLabels runs through Kueue unchanged', async (t) => {
      const { namespace, clients, pods } = await queuedScenario(t, 'kueue-hello', 'hello');
      const miniCluster = await goTestMiniCluster('hello-world', namespace, 'localhost/plain:bookworm');
      const spec = miniCluster.spec as Record<string, unknown>;
      spec.jobLabels = {
        ...(spec.jobLabels as Record<string, string> | undefined),
        [LABEL_QUEUE_NAME]: LOCAL_QUEUE,
      };
      const t0 = Date.now();
      await applyMiniCluster(clients, miniCluster);
      const status = await waitFor(
        async () => {
          const read = await readStatus(clients, namespace, 'flux-sample');
          return read.summary === 'Succeeded' || read.summary === 'Failed' ? read : false;
        },
        { what: 'flux-sample to finish', timeoutMs: 300_000, intervalMs: 1_000 },
      );
      assert.equal(status.summary, 'Succeeded', JSON.stringify(status.conditions));
      assert.equal(conditionOf(status, 'Queued')?.reason, 'Admitted');
      const job = await jobOf(namespace, 'flux-sample');
      assert.equal(job.metadata?.labels?.[LABEL_QUEUE_NAME], LOCAL_QUEUE);
      assert.equal(
        job.spec?.template.metadata?.labels?.['kueue.x-k8s.io/cluster-queue-name'],
        'fo-e2e-hello',
      );
      const expected = await expectedGoLog('hello-world');
      assert.equal(expected.kind, 'log');
      if (expected.kind === 'log') {
        assert.equal(await leadLog(clients, namespace, 'flux-sample', 'flux-sample'), expected.text);
      }
      t.diagnostic(
        `succeeded ${((Date.now() - t0) / 1000).toFixed(1)} s after apply; pods seen ${pods.pods.length}`,
      );
    });
  });
}
