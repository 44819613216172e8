// Real Kueue (v0.17.0, built from its Go module) in a local cluster of its own, `kueue-it`, started with
// it and stopped at the end: its webhook suspends a queued Job at creation, its controller makes the
// Workload and admits it when it fits the ClusterQueue's quota (the kwok nodes run its pod), a second
// Job that does not fit stays suspended with its Workload pending until the first finishes, and its
// validating webhook refuses a change of queue while a Job runs. Nothing of it is left running after.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { V1SelfSubjectReview, V1Job } from '@kubernetes/client-node';
import {
  apiClients,
  type BatchApi,
  type CoreApi,
  type CustomObjectsApi,
} from '../../src/kube/api-clients.ts';
import { accessFromKubeconfig } from '../../src/kube/cluster-access.ts';
import {
  down,
  EXIT_CODE_ANNOTATION,
  KUEUE_VERSION,
  listeningSockets,
  listeningSocketsOf,
  QUEUE_NAME_LABEL,
  status,
  up,
  type KueueStatus,
} from '../../workbench/src/localcluster/index.ts';
import { kueueFiles } from '../../workbench/src/localcluster/kueue/config.ts';
import { kueueBinary, kueueStateDir } from '../../workbench/src/localcluster/kueue/paths.ts';
import { kueueProcesses, METRICS_CERT_MOUNT } from '../../workbench/src/localcluster/kueue/process.ts';
import { kwokClusterDir } from '../../workbench/src/localcluster/paths.ts';
import { isAlive } from '../../workbench/src/localcluster/procfs.ts';
import { within } from '../../workbench/src/localcluster/poll.ts';
import { waitFor } from '../harness/cluster.ts';

const CLUSTER = 'kueue-it';
const NAMESPACE = 'kueue-jobs';
const GROUP = 'kueue.x-k8s.io';
const VERSION = 'v1beta2';
/** The ClusterQueue's CPU quota: one 2-CPU Job fits, two do not. */
const CPU_QUOTA = '3';
const JOB_CPU = '2';
/** One call to the API server. */
const CALL_MS = 30_000;
/** Building Kueue on first use takes about 10 minutes on 2 cores (docs/kueue.md), the cluster 1-2. */
const UP_MS = 40 * 60_000;

const progress = (line: string) => process.stderr.write(`[kueue-it] ${line}\n`);
const call = <T>(what: string, promise: Promise<T>) => within(what, CALL_MS, promise);

let core: CoreApi;
let batch: BatchApi;
let custom: CustomObjectsApi;
let kueue: KueueStatus | undefined;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface Workload {
  metadata: { name: string; ownerReferences?: { uid?: string }[] };
  spec?: { queueName?: string };
  status?: { conditions?: Condition[] };
}

before(async () => {
  const t0 = Date.now();
  const res = await within(
    `cluster ${CLUSTER} with Kueue`,
    UP_MS,
    up({ name: CLUSTER, kueue: true, progress }),
  );
  progress(`up with Kueue in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  kueue = res.status.kueue;
  ({ core, batch, custom } = apiClients(accessFromKubeconfig(res.kubeconfig)));
});

after(async () => {
  await within(`stopping cluster ${CLUSTER}`, 5 * 60_000, down({ name: CLUSTER, progress }));
});

function condition(workload: Workload | undefined, type: string): Condition | undefined {
  return workload?.status?.conditions?.find((c) => c.type === type);
}

async function createCustom(plural: string, body: object, namespace?: string): Promise<void> {
  const request = { group: GROUP, version: VERSION, plural, body };
  await call(
    `creating a ${plural} object`,
    namespace === undefined
      ? custom.createClusterCustomObject(request)
      : custom.createNamespacedCustomObject({ ...request, namespace }),
  );
}

/** The Workload Kueue made for a Job (it owns it). */
async function workloadOf(job: V1Job): Promise<Workload | undefined> {
  const list = (await call(
    'listing Workloads',
    custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural: 'workloads',
    }),
  )) as { items: Workload[] };
  return list.items.find((w) => w.metadata.ownerReferences?.some((o) => o.uid === job.metadata?.uid));
}

async function readJob(name: string): Promise<V1Job> {
  return call(`reading Job ${name}`, batch.readNamespacedJob({ name, namespace: NAMESPACE }));
}

/** A Job in the LocalQueue, one pod asking for JOB_CPU, not suspended by us. */
function queuedJob(name: string): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, labels: { [QUEUE_NAME_LABEL]: 'jobs' } },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'work',
              image: 'localhost/none',
              resources: { requests: { cpu: JOB_CPU, memory: '1Gi' } },
            },
          ],
        },
      },
    },
  };
}

test(`Kueue ${KUEUE_VERSION} runs on this host, on loopback only, as its own ServiceAccount`, async () => {
  assert.ok(kueue?.running && kueue.pid !== undefined, `Kueue runs: ${JSON.stringify(kueue)}`);
  const sockets = listeningSocketsOf([kueue.pid]);
  assert.deepEqual(
    sockets.map((s) => s.port).sort(),
    [kueue.ports?.webhook, kueue.ports?.health, kueue.ports?.metrics].sort(),
    'it listens on its webhook, health and metrics ports, nothing else (no visibility server)',
  );
  assert.ok(
    sockets.every((s) => s.address === '127.0.0.1'),
    `all on loopback: ${JSON.stringify(sockets)}`,
  );
  const own = apiClients(accessFromKubeconfig(kueueFiles(kueueStateDir(kwokClusterDir(CLUSTER))).kubeconfig));
  const review = await call(
    'a SelfSubjectReview as Kueue',
    own.transport.request<V1SelfSubjectReview>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    }),
  );
  assert.equal(
    review.status?.userInfo?.username,
    'system:serviceaccount:kueue-system:kueue-controller-manager',
  );
});

test('a queued Job is suspended at creation, admitted within quota; one beyond it waits for the quota', async () => {
  await call('creating the namespace', core.createNamespace({ body: { metadata: { name: NAMESPACE } } }));
  await createCustom('resourceflavors', {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'ResourceFlavor',
    metadata: { name: 'kwok' },
  });
  await createCustom('clusterqueues', {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'ClusterQueue',
    metadata: { name: 'cluster-jobs' },
    spec: {
      cohortName: 'kwok-jobs',
      namespaceSelector: {},
      resourceGroups: [
        {
          coveredResources: ['cpu', 'memory'],
          flavors: [
            {
              name: 'kwok',
              resources: [
                { name: 'cpu', nominalQuota: CPU_QUOTA },
                { name: 'memory', nominalQuota: '8Gi' },
              ],
            },
          ],
        },
      ],
    },
  });
  await createCustom(
    'localqueues',
    {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'LocalQueue',
      metadata: { name: 'jobs', namespace: NAMESPACE },
      spec: { clusterQueue: 'cluster-jobs' },
    },
    NAMESPACE,
  );
  // Read as v1beta1, the ClusterQueue stored as v1beta2 goes through Kueue's conversion webhook, which
  // renames cohortName to cohort.
  const old = (await call(
    'reading the ClusterQueue as v1beta1',
    custom.getClusterCustomObject({
      group: GROUP,
      version: 'v1beta1',
      plural: 'clusterqueues',
      name: 'cluster-jobs',
    }),
  )) as { apiVersion: string; spec: { cohort?: string } };
  assert.equal(old.apiVersion, `${GROUP}/v1beta1`);
  assert.equal(old.spec.cohort, 'kwok-jobs');
  // Pods need the namespace's default ServiceAccount.
  await waitFor(
    () =>
      call(
        'reading a ServiceAccount',
        core.readNamespacedServiceAccount({ name: 'default', namespace: NAMESPACE }),
      ),
    { what: 'the default ServiceAccount', timeoutMs: 60_000 },
  );

  const first = await call(
    'creating Job first',
    batch.createNamespacedJob({ namespace: NAMESPACE, body: queuedJob('first') }),
  );
  assert.equal(first.spec?.suspend, true, "Kueue's mutating webhook suspends the queued Job at creation");
  const admitted = await waitFor(
    async () => {
      const w = await workloadOf(first);
      return condition(w, 'Admitted')?.status === 'True' ? w : undefined;
    },
    { what: "the first Job's Workload admitted", timeoutMs: 120_000 },
  );
  assert.equal(admitted.spec?.queueName, 'jobs');
  assert.equal(condition(admitted, 'QuotaReserved')?.status, 'True');
  await waitFor(async () => (await readJob('first')).spec?.suspend === false, {
    what: 'Kueue to unsuspend the admitted Job',
    timeoutMs: 60_000,
  });
  const pod = await waitFor(
    async () => {
      const pods = await call(
        'listing pods',
        core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: 'job-name=first' }),
      );
      return pods.items.find((p) => p.status?.phase === 'Running');
    },
    { what: "the admitted Job's pod Running on a kwok node", timeoutMs: 120_000 },
  );
  assert.match(pod.spec?.nodeName ?? '', /^kwok-node-/);

  // Kueue's validating webhook: a running Job keeps its queue.
  await assert.rejects(
    call(
      'relabelling the running Job',
      batch.patchNamespacedJob({
        name: 'first',
        namespace: NAMESPACE,
        body: { metadata: { labels: { [QUEUE_NAME_LABEL]: 'other' } } },
      }),
    ),
    (err: unknown) => {
      assert.match(
        String((err as { body?: unknown }).body ?? err),
        /queue-name.*immutable|immutable.*queue-name/is,
      );
      return true;
    },
  );

  const second = await call(
    'creating Job second',
    batch.createNamespacedJob({ namespace: NAMESPACE, body: queuedJob('second') }),
  );
  assert.equal(second.spec?.suspend, true);
  const pending = await waitFor(
    async () => {
      const w = await workloadOf(second);
      const reserved = condition(w, 'QuotaReserved');
      return reserved?.status === 'False' && reserved.reason === 'Pending' ? w : undefined;
    },
    { what: "the second Job's Workload pending for quota", timeoutMs: 120_000 },
  );
  assert.match(condition(pending, 'QuotaReserved')?.message ?? '', /insufficient.*cpu/i);
  assert.notEqual(condition(pending, 'Admitted')?.status, 'True');
  assert.equal((await readJob('second')).spec?.suspend, true, 'the Job beyond the quota stays suspended');

  // The first Job's pod exits 0 (kwok's stage for the annotation): its quota goes to the second.
  await call(
    'annotating the pod',
    core.patchNamespacedPod({
      name: pod.metadata?.name ?? '',
      namespace: NAMESPACE,
      body: { metadata: { annotations: { [EXIT_CODE_ANNOTATION]: '0' } } },
    }),
  );
  await waitFor(async () => (await readJob('second')).spec?.suspend === false, {
    what: 'the second Job admitted once the first finished',
    timeoutMs: 120_000,
  });
  assert.equal(condition(await workloadOf(second), 'Admitted')?.status, 'True');
  assert.equal(condition(await workloadOf(first), 'Finished')?.status, 'True');
});

test('cluster:down stops Kueue with the cluster, leaving nothing running or listening', async () => {
  const pid = kueue?.pid;
  const ports = Object.values(kueue?.ports ?? {});
  assert.ok(pid !== undefined && ports.length === 3);
  await within(`stopping cluster ${CLUSTER}`, 5 * 60_000, down({ name: CLUSTER, progress }));
  assert.equal(isAlive(pid), false, `Kueue (pid ${pid}) is gone`);
  const listening = new Set(listeningSockets().map((s) => s.port));
  assert.deepEqual(
    ports.filter((p) => listening.has(p)),
    [],
    "nothing listens on Kueue's ports",
  );
  const st = status({ name: CLUSTER });
  assert.equal(st.exists, false);
  assert.equal(st.kueue, undefined);
  assert.deepEqual(st.processes, []);
  // Another cluster's Kueue would still need the folder it mounts over.
  if (kueueProcesses(kueueBinary()).length === 0) {
    assert.equal(existsSync(METRICS_CERT_MOUNT), false, 'the mount point made for it is gone');
  }
});
