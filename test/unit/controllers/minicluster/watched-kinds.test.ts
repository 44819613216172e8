import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { computeStatus } from '../../../../src/controllers/minicluster/status.ts';
import { podForCache } from '../../../../src/controllers/minicluster/watched-kinds.ts';
import { defaulted as defaulted } from '../../render/fixtures.ts';

function livePod(index: number, phase: string): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `flux-sample-${index}-abcde`,
      namespace: 'ns',
      uid: `uid-${index}`,
      resourceVersion: '42',
      labels: { 'batch.kubernetes.io/job-completion-index': String(index) },
      annotations: { big: 'x'.repeat(1000) },
      managedFields: [{ manager: 'kubelet', operation: 'Update' }],
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'flux-sample', uid: 'j' }],
    },
    spec: { containers: [{ name: 'flux-sample', image: 'img', command: ['sh', '-c', 'x'.repeat(1000)] }] },
    status: {
      phase,
      hostIP: '10.0.0.1',
      podIP: '10.1.0.1',
      conditions: [
        { type: 'Ready', status: phase === 'Running' ? 'True' : 'False', lastProbeTime: undefined },
        { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'no node' },
      ],
      initContainerStatuses: [
        {
          name: 'flux-view',
          image: 'view',
          imageID: 'sha',
          ready: false,
          restartCount: 0,
          state:
            index === 2
              ? { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "view"' } }
              : { terminated: { exitCode: 0 } },
        },
      ],
      containerStatuses: [
        {
          name: 'flux-sample',
          image: 'img',
          imageID: 'sha',
          ready: phase === 'Running',
          restartCount: 0,
          state: index === 0 ? { terminated: { exitCode: 3 } } : { waiting: { reason: 'CrashLoopBackOff' } },
        },
      ],
    },
  } as V1Pod;
}

describe('podForCache', () => {
  it('keeps what routing and status read, drops the spec and the rest', () => {
    const kept = podForCache(livePod(1, 'Running'));
    assert.deepEqual(kept, {
      metadata: {
        name: 'flux-sample-1-abcde',
        namespace: 'ns',
        uid: 'uid-1',
        resourceVersion: '42',
        labels: { 'batch.kubernetes.io/job-completion-index': '1' },
      },
      status: {
        phase: 'Running',
        hostIP: '10.0.0.1',
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'PodScheduled', status: 'False', reason: 'Unschedulable' },
        ],
        initContainerStatuses: [
          { name: 'flux-view', state: { terminated: { exitCode: 0 } }, ready: false, restartCount: 0 },
        ],
        containerStatuses: [
          {
            name: 'flux-sample',
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            ready: true,
            restartCount: 0,
          },
        ],
      },
    });
    const deleting = livePod(2, 'Running');
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: '2026-03-01T12:00:00Z' as never };
    assert.equal(podForCache(deleting).metadata?.deletionTimestamp, '2026-03-01T12:00:00Z');
  });

  it('keeps which init containers are sidecars and how a restarted container last ended', () => {
    const pod = livePod(1, 'Pending');
    pod.spec = {
      ...pod.spec,
      containers: pod.spec?.containers ?? [],
      initContainers: [
        { name: 'flux-view', image: 'view', restartPolicy: 'Always', command: ['/bin/sh', 'x'.repeat(100)] },
        { name: 'ordinary', image: 'other' },
      ],
    };
    const [view] = pod.status?.initContainerStatuses ?? [];
    if (view === undefined) throw new Error('livePod has a flux-view status');
    view.state = { waiting: { reason: 'RunContainerError', message: 'exec: "/bin/sh": no such file' } };
    view.lastState = {
      terminated: {
        containerID: 'containerd://abc',
        exitCode: 128,
        reason: 'StartError',
        message: 'exec: "/bin/sh": no such file',
        startedAt: new Date(0),
        finishedAt: new Date(1000),
      },
    };
    view.restartCount = 2;
    const kept = podForCache(pod);
    assert.deepEqual(kept.spec, {
      containers: [{ name: 'flux-sample' }],
      initContainers: [{ name: 'flux-view', restartPolicy: 'Always' }],
    });
    assert.deepEqual(kept.status?.initContainerStatuses?.[0], {
      name: 'flux-view',
      state: { waiting: { reason: 'RunContainerError', message: 'exec: "/bin/sh": no such file' } },
      lastState: {
        terminated: { exitCode: 128, reason: 'StartError', message: 'exec: "/bin/sh": no such file' },
      },
      ready: false,
      restartCount: 2,
    });
    // Without sidecars, no spec at all.
    assert.equal(podForCache(livePod(1, 'Pending')).spec, undefined);
    // The status read from the cache says what the full pod says: the sidecar kept the broker out.
    const miniCluster = defaulted({ size: 2 });
    const job = { metadata: { name: 'flux-sample' }, status: {} };
    const now = new Date('2026-03-01T12:00:00Z');
    const waitingBroker = { ...pod, status: { ...pod.status, containerStatuses: [] } };
    const pods = [livePod(0, 'Running'), waitingBroker];
    const full = computeStatus({ miniCluster, previous: undefined, job, pods, now });
    const cached = computeStatus({ miniCluster, previous: undefined, job, pods: pods.map(podForCache), now });
    assert.deepEqual(cached, full);
    assert.equal(full.summary, 'Failed');
    // A lead whose Flux container ended with 0, its sidecar still up: Succeeded from the cache too.
    const lead = livePod(0, 'Running');
    lead.spec = { ...pod.spec, containers: lead.spec?.containers ?? [] };
    lead.status = {
      ...lead.status,
      initContainerStatuses: [{ ...view, state: { running: {} }, restartCount: 0 }],
      containerStatuses: [
        {
          name: 'flux-sample',
          image: 'img',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 0 } },
        },
      ],
    };
    const succeeded = (pods: V1Pod[]) =>
      computeStatus({ miniCluster, previous: undefined, job, pods, now }).summary;
    assert.equal(succeeded([lead]), 'Succeeded');
    assert.equal(succeeded([podForCache(lead)]), 'Succeeded');
  });

  it('gives the MiniCluster the same status as the full pods', () => {
    const miniCluster = defaulted({ size: 3 });
    const now = new Date('2026-03-01T12:00:00Z');
    const job = { metadata: { name: 'flux-sample' }, status: {} };
    for (const phases of [
      ['Running', 'Running', 'Running'],
      ['Running', 'Pending', 'Failed'],
      ['Failed', 'Running', 'Pending'],
    ]) {
      const pods = phases.map((phase, index) => livePod(index, phase));
      const full = computeStatus({ miniCluster, previous: undefined, job, pods, now });
      const cached = computeStatus({
        miniCluster,
        previous: undefined,
        job,
        pods: pods.map(podForCache),
        now,
      });
      assert.deepEqual(cached, full, phases.join());
    }
    // Pod 2 waits for its init container in livePod, which the Ready condition names from the cache too.
    const scheduled = livePod(2, 'Pending');
    scheduled.status = { ...scheduled.status, conditions: [{ type: 'PodScheduled', status: 'True' }] };
    const waiting = [livePod(1, 'Running'), scheduled].map(podForCache);
    const ready = computeStatus({ miniCluster, previous: undefined, job, pods: waiting, now })
      .conditions?.[0];
    assert.match(
      ready?.message ?? '',
      /flux-sample-2-abcde Pending \(init container flux-view: ImagePullBackOff: /,
    );
  });
});
