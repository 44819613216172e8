import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import { queueState, type KueueWorkload } from '../../../../src/controllers/minicluster/queue-status.ts';
import { computeStatus, transitionEvents } from '../../../../src/controllers/minicluster/status.ts';
import { externalMiniCluster } from '../../../../src/burst/external-minicluster.ts';
import {
  queueLabels,
  renderMiniCluster,
  withQueueLabels,
  type KubeObject,
} from '../../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted, defaultedV1alpha1 } from '../../render/fixtures.ts';

const QUEUE = 'kueue.x-k8s.io/queue-name';
const NOW = new Date('2026-03-01T12:00:00Z');

function job(spec: { suspend?: boolean; parallelism?: number; clusterQueue?: string } = {}): V1Job {
  return {
    metadata: { name: 'flux-sample', uid: 'job-uid', labels: { [QUEUE]: 'minis' } },
    spec: {
      ...(spec.suspend === undefined ? {} : { suspend: spec.suspend }),
      parallelism: spec.parallelism ?? 4,
      template: {
        metadata: {
          labels: spec.clusterQueue ? { 'kueue.x-k8s.io/cluster-queue-name': spec.clusterQueue } : {},
        },
      },
    },
  } as V1Job;
}

function workload(conditions: NonNullable<KueueWorkload['status']>['conditions']): KueueWorkload {
  return { metadata: { name: 'job-flux-sample-1a2b3' }, status: { conditions } };
}

const PENDING = workload([
  {
    type: 'QuotaReserved',
    status: 'False',
    reason: 'Pending',
    message:
      "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 4 more needed",
  },
]);

describe('queueState', () => {
  it('is undefined for a MiniCluster that names no queue', () => {
    assert.equal(queueState({ job: undefined, renderedLabels: { team: 'a' }, size: 4 }), undefined);
  });

  it('says a suspended Job waits with Kueue’s reason and message, naming the queue', () => {
    const state = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 4,
      reading: { workload: PENDING },
    });
    assert.deepEqual(state, {
      queue: 'minis',
      waiting: true,
      condition: {
        type: 'Queued',
        status: 'True',
        reason: 'Pending',
        message:
          "queue minis: waiting for Kueue to admit Workload job-flux-sample-1a2b3: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 4 more needed",
      },
    });
  });

  it('says a request beyond all the queue can give never fits', () => {
    const never = workload([
      {
        type: 'QuotaReserved',
        status: 'False',
        reason: 'Pending',
        message:
          "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor f, previously considered podsets requests (0) + current podset request (12) > maximum capacity (8)",
      },
    ]);
    const state = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 3,
      reading: { workload: never },
    });
    assert.equal(state?.condition.reason, 'Pending');
    assert.equal(
      state?.condition.message,
      "queue minis: can never be admitted as it is, it asks for more than the queue can ever give (Workload job-flux-sample-1a2b3: couldn't assign flavors to pod set main: insufficient quota for cpu in flavor f, previously considered podsets requests (0) + current podset request (12) > maximum capacity (8)); lower its size or its requests, or give the queue more quota",
    );
  });

  it('says an evicted Job was preempted, with Kueue’s eviction reason', () => {
    const evicted = workload([
      {
        type: 'Evicted',
        status: 'True',
        reason: 'Preempted',
        message: 'Preempted to accommodate a workload (UID: x) due to prioritization in the ClusterQueue',
      },
      { type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'insufficient unused quota' },
    ]);
    const state = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 4,
      reading: { workload: evicted },
    });
    assert.deepEqual(state?.condition, {
      type: 'Queued',
      status: 'True',
      reason: 'Preempted',
      message:
        'queue minis: evicted by Kueue (Preempted: Preempted to accommodate a workload (UID: x) due to prioritization in the ClusterQueue); its brokers stopped and it waits to be admitted again: insufficient unused quota',
    });
  });

  it('says a PodsReadyTimeout eviction means its pods were not Ready in time, when it is queued again and what to do', () => {
    // The Workload as Kueue v0.17 leaves it right after the eviction (workload_controller.go:
    // reconcileNotReadyTimeout, then the Job's reconciler clearing the admission with the same message).
    const message = 'Exceeded the PodsReady timeout fo-kueue-ready/job-never-ready-1a2b3';
    const timedOut = (
      requeueState: NonNullable<KueueWorkload['status']>['requeueState'],
      pending: string,
    ) => ({
      metadata: { name: 'job-never-ready-1a2b3' },
      status: {
        conditions: [
          { type: 'Evicted', status: 'True', reason: 'PodsReadyTimeout', message },
          { type: 'QuotaReserved', status: 'False', reason: 'Pending', message: pending },
          { type: 'Requeued', status: 'False', reason: 'PodsReadyTimeout', message },
        ],
        ...(requeueState === undefined ? {} : { requeueState }),
      },
    });
    const state = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 4,
      reading: { workload: timedOut({ count: 1, requeueAt: '2026-03-01T12:00:10Z' }, message) },
    });
    assert.equal(state?.waiting, true);
    assert.deepEqual(state?.condition, {
      type: 'Queued',
      status: 'True',
      reason: 'PodsReadyTimeout',
      message:
        "queue minis: evicted by Kueue (PodsReadyTimeout: Exceeded the PodsReady timeout fo-kueue-ready/job-never-ready-1a2b3): not all of its pods were Ready within Kueue's waitForPodsReady timeout, so Kueue stopped its brokers and gave its quota back (once so far); Kueue queues it again at 2026-03-01T12:00:10Z, after its backoff. Find why its pods do not become Ready (kubectl get events: an image that is not on the node, a pod that cannot be scheduled, a failing init container) and fix the MiniCluster, or Kueue keeps admitting and evicting it",
    });
    // Its backoff over (requeueAt cleared), Kueue's scheduler gives the pending Workload its own reason.
    const later = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 4,
      reading: {
        workload: timedOut({ count: 3 }, 'insufficient unused quota for cpu in flavor f, 1 more needed'),
      },
    });
    assert.equal(later?.condition.reason, 'PodsReadyTimeout');
    assert.match(
      later?.condition.message ?? '',
      /gave its quota back \(3 times so far\); its backoff is over and it waits to be admitted again: insufficient unused quota for cpu in flavor f, 1 more needed\. Find why/,
    );
  });

  it('says an eviction message once when the pending Workload repeats it', () => {
    const message = 'Preempted to accommodate a workload (UID: x) due to prioritization in the ClusterQueue';
    const state = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 4,
      reading: {
        workload: workload([
          { type: 'Evicted', status: 'True', reason: 'Preempted', message },
          { type: 'QuotaReserved', status: 'False', reason: 'Pending', message },
        ]),
      },
    });
    assert.equal(
      state?.condition.message,
      `queue minis: evicted by Kueue (Preempted: ${message}); its brokers stopped and it waits to be admitted again`,
    );
  });

  it('says when the Workload is not there yet, or cannot be read', () => {
    const missing = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 4,
      reading: { missing: true },
    });
    assert.equal(missing?.condition.reason, 'WaitingForWorkload');
    const unreadable = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 4,
      reading: { unreadable: 'Forbidden: workloads.kueue.x-k8s.io' },
    });
    assert.equal(unreadable?.condition.reason, 'WorkloadUnreadable');
    assert.match(unreadable?.condition.message ?? '', /Forbidden: workloads\.kueue\.x-k8s\.io/);
  });

  it('queues a MiniCluster whose Job is not made yet by the label its render gives the Job', () => {
    const state = queueState({ job: undefined, renderedLabels: { [QUEUE]: 'minis' }, size: 4 });
    assert.equal(state?.waiting, true);
    assert.equal(state?.condition.reason, 'JobPending');
  });

  it('reports an admitted Job by its ClusterQueue, and keeps its size when spec.size changes', () => {
    const admitted = queueState({
      job: job({ suspend: false, clusterQueue: 'cq' }),
      renderedLabels: {},
      size: 4,
    });
    assert.deepEqual(admitted, {
      queue: 'minis',
      waiting: false,
      condition: {
        type: 'Queued',
        status: 'False',
        reason: 'Admitted',
        message: 'queue minis: admitted by Kueue in ClusterQueue cq for 4 pods',
      },
    });
    const grown = queueState({
      job: job({ suspend: false, clusterQueue: 'cq' }),
      renderedLabels: {},
      size: 6,
    });
    assert.equal(grown?.jobSize, 4);
    assert.equal(grown?.scaling?.reason, 'WaitingForReadmission');
    assert.equal(grown?.scaling?.status, 'False');
    // Held suspended (queued, evicted), the new size goes to the Job: Kueue updates the Workload.
    const suspended = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 6,
      reading: { workload: PENDING },
    });
    assert.equal(suspended?.jobSize, undefined);
  });

  it('says when a Job with a queue label runs without Kueue having admitted it', () => {
    const state = queueState({ job: job({ suspend: false }), renderedLabels: {}, size: 4 });
    assert.equal(state?.condition.reason, 'NotManagedByKueue');
    assert.equal(state?.jobSize, undefined, 'no quota to keep to');
  });
});

describe('status under Kueue', () => {
  // With a command: no RESTful API, whose condition would join the others.
  const miniCluster = defaulted({ size: 4, containers: [{ image: IMAGE, command: 'hostname' }] });
  const waiting = queueState({
    job: job({ suspend: true }),
    renderedLabels: {},
    size: 4,
    reading: { workload: PENDING },
  });

  it('is Queued, with Ready and Scaling saying why nothing runs', () => {
    assert.ok(waiting);
    const status = computeStatus({
      miniCluster,
      previous: undefined,
      job: job({ suspend: true }),
      pods: [],
      queue: waiting,
      now: NOW,
    });
    assert.equal(status.summary, 'Queued');
    const byType = Object.fromEntries((status.conditions ?? []).map((c) => [c.type, [c.status, c.reason]]));
    assert.deepEqual(byType, {
      Ready: ['False', 'Queued'],
      Scaling: ['False', 'Queued'],
      Queued: ['True', 'Pending'],
    });
  });

  it('tells an admitted MiniCluster that Kueue evicts for PodsReadyTimeout as a Warning, and why', () => {
    const admittedJob = job({ suspend: false, clusterQueue: 'cq' });
    const admittedState = queueState({ job: admittedJob, renderedLabels: {}, size: 4 });
    assert.ok(admittedState);
    const admitted = computeStatus({
      miniCluster,
      previous: undefined,
      job: admittedJob,
      pods: [],
      queue: admittedState,
      now: NOW,
    });
    const message = 'Exceeded the PodsReady timeout ns/job-flux-sample-1a2b3';
    const timedOut = queueState({
      job: job({ suspend: true }),
      renderedLabels: {},
      size: 4,
      reading: {
        workload: {
          metadata: { name: 'job-flux-sample-1a2b3' },
          status: {
            conditions: [
              { type: 'Evicted', status: 'True', reason: 'PodsReadyTimeout', message },
              { type: 'QuotaReserved', status: 'False', reason: 'Pending', message },
            ],
            requeueState: { count: 2, requeueAt: '2026-03-01T12:00:20Z' },
          },
        },
      },
    });
    assert.ok(timedOut);
    const evicted = computeStatus({
      miniCluster,
      previous: admitted,
      job: job({ suspend: true }),
      pods: [],
      queue: timedOut,
      now: NOW,
    });
    assert.equal(evicted.summary, 'Queued');
    const [event, ...others] = transitionEvents(admitted, evicted);
    assert.deepEqual(others, []);
    assert.equal(event?.type, 'Warning');
    assert.equal(event?.reason, 'Evicted');
    assert.match(
      event?.note ?? '',
      /^queue minis: evicted by Kueue \(PodsReadyTimeout: Exceeded the PodsReady timeout/,
    );
    assert.match(event?.note ?? '', /\(2 times so far\); Kueue queues it again at 2026-03-01T12:00:20Z/);
  });

  it('tells Queued, then Admitted, then Evicted as events', () => {
    assert.ok(waiting);
    const queued = computeStatus({
      miniCluster,
      previous: undefined,
      job: job({ suspend: true }),
      pods: [],
      queue: waiting,
      now: NOW,
    });
    assert.deepEqual(
      transitionEvents(undefined, queued).map((e) => e.reason),
      ['Queued'],
    );
    const admittedState = queueState({
      job: job({ suspend: false, clusterQueue: 'cq' }),
      renderedLabels: {},
      size: 4,
    });
    assert.ok(admittedState);
    const admitted = computeStatus({
      miniCluster,
      previous: queued,
      job: job({ suspend: false, clusterQueue: 'cq' }),
      pods: [],
      queue: admittedState,
      now: NOW,
    });
    assert.deepEqual(
      transitionEvents(queued, admitted).map((e) => e.reason),
      ['Admitted'],
    );
    const again = computeStatus({
      miniCluster,
      previous: admitted,
      job: job({ suspend: true }),
      pods: [],
      queue: waiting,
      now: NOW,
    });
    assert.deepEqual(
      transitionEvents(admitted, again).map((e) => [e.type, e.reason]),
      [['Warning', 'Evicted']],
    );
  });
});

describe("Kueue's labels on the Job", () => {
  it('takes the queue and priority class from the MiniCluster’s labels, and nothing else of them', () => {
    assert.deepEqual(queueLabels({ team: 'a', [QUEUE]: 'minis', 'kueue.x-k8s.io/priority-class': 'high' }), {
      [QUEUE]: 'minis',
      'kueue.x-k8s.io/priority-class': 'high',
    });
  });

  it('renders them on the Job; spec.jobLabels win', () => {
    const labelled = defaulted({
      size: 2,
      containers: [{ image: IMAGE }],
      jobLabels: { [QUEUE]: 'from-job-labels' },
    });
    labelled.metadata.labels = { [QUEUE]: 'from-metadata', 'kueue.x-k8s.io/priority-class': 'high' };
    const rendered = renderMiniCluster(labelled, KEYS).find((object) => object.kind === 'Job');
    assert.equal(rendered?.metadata.labels?.[QUEUE], 'from-job-labels');
    assert.equal(rendered?.metadata.labels?.['kueue.x-k8s.io/priority-class'], 'high');
  });

  it('adds the labels a rendered Job lacks, returning the same object when it lacks none', () => {
    const rendered: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j', labels: { a: 'b' } },
    };
    assert.deepEqual(withQueueLabels(rendered, { [QUEUE]: 'minis' }).metadata.labels, {
      [QUEUE]: 'minis',
      a: 'b',
    });
    assert.equal(withQueueLabels(rendered, { other: 'x' }), rendered);
    const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } };
    assert.equal(withQueueLabels(service, { [QUEUE]: 'minis' }), service);
  });
});

describe('a BurstTarget with a queue', () => {
  const local = defaultedV1alpha1(
    {
      size: 2,
      containers: [{ image: IMAGE }],
      flux: { bursting: { clusters: [{ name: 'burst-0', size: 2 }] } },
    },
    'burst-local',
  );
  const request = {
    local,
    slot: 'burst-0',
    size: 2,
    leadBroker: { address: '203.0.113.10', port: 30093 },
    namespace: 'remote',
  };

  it("labels the burst MiniCluster with the target's queue, so that it queues there too", () => {
    const queued = externalMiniCluster({ ...request, queueName: 'remote-minis' });
    assert.equal(queued.miniCluster.metadata.labels?.[QUEUE], 'remote-minis');
    const rendered = renderMiniCluster(
      {
        ...defaulted({ size: 2, containers: [{ image: IMAGE }] }, queued.name),
        metadata: queued.miniCluster.metadata,
      },
      KEYS,
    ).find((object) => object.kind === 'Job');
    assert.equal(rendered?.metadata.labels?.[QUEUE], 'remote-minis');
  });

  it('leaves it unlabelled without one, under the same name', () => {
    const plain = externalMiniCluster(request);
    assert.equal(plain.miniCluster.metadata.labels?.[QUEUE], undefined);
    assert.equal(plain.name, externalMiniCluster({ ...request, queueName: 'remote-minis' }).name);
  });
});
