import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION_V1ALPHA1, validateMiniClusterV1alpha1 } from '../../../../src/api/index.ts';
import {
  burstingCondition,
  cannotFitEvents,
  unservedJobs,
  type BurstJobRecord,
} from '../../../../src/controllers/minicluster/burst-jobs.ts';
import { planBursts } from '../../../../src/burst/planner.ts';
import { cluster, input, job, secondsAgo, slots } from '../../burst/fixtures.ts';

const READY_BURST = {
  slot: 'burst-0',
  target: 'in-cluster',
  name: 'flux-sample-burst-0-0123456789',
  namespace: 'default',
  size: 2,
  state: 'Ready' as const,
  createdAt: '2026-01-01T11:00:00Z',
};

function record(id: string, reason: BurstJobRecord['reason'], message = `${id}: ${reason}`): BurstJobRecord {
  return { id, reason, message };
}

describe('unservedJobs', () => {
  it('lists never-fitting and waiting jobs by id, with the planner reasons and messages', () => {
    // 2 local brokers and one 4-host slot: 9 nodes never fit, no node count never fits, 4 get a burst.
    const plan = planBursts(
      input({
        slots: slots(4),
        jobs: [job('f5', 9), job('f3', 0), job('f4', 4)],
        policy: { maxBurstNodes: 4, idleSeconds: 300, targets: [{ name: 'in-cluster' }] },
      }),
    );
    assert.deepEqual(
      unservedJobs(plan).map((entry) => [entry.id, entry.reason]),
      [
        ['f3', 'NodeCountUnknown'],
        ['f5', 'ExceedsDeclaredHosts'],
      ],
    );
    assert.match(
      unservedJobs(plan)[1]?.message ?? '',
      /^job f5 needs 9 nodes; this MiniCluster lists 2 local/,
    );
  });

  it('lists a job waiting for capacity as NoFreeCapacity', () => {
    // Two clusters in slot burst-0 (the newer one is being removed) use all of maxBurstNodes 4 for now.
    const plan = planBursts(
      input({
        slots: slots(2, 2),
        clusters: [
          cluster('burst-0', 2, { createdAt: secondsAgo(600) }),
          cluster('burst-0', 2, { createdAt: secondsAgo(60) }),
        ],
        jobs: [job('f7', 6)],
        policy: { maxBurstNodes: 4, idleSeconds: 300, targets: [{ name: 'in-cluster' }] },
      }),
    );
    assert.deepEqual(unservedJobs(plan), [
      record(
        'f7',
        'NoFreeCapacity',
        'job f7 needs 6 nodes; 4 are up or on their way and the free slots, room to grow within slots, maxBurstNodes and targets allow 0 more now; it waits until idle burst clusters are removed',
      ),
    ]);
  });

  it('keeps at most 32 jobs and bounds each message', () => {
    const many = Array.from({ length: 40 }, (_, index) => ({
      jobId: `f${String(index).padStart(2, '0')}`,
      reason: 'NoBurstSlots' as const,
      message: 'x'.repeat(2000),
    }));
    const listed = unservedJobs({ unsatisfiable: many, waiting: [] });
    assert.equal(listed.length, 32);
    assert.equal(listed[0]?.id, 'f00');
    assert.equal(listed[31]?.id, 'f31');
    assert.equal(listed[0]?.message.length, 1024);
    assert.ok(listed[0]?.message.endsWith('...'));
  });

  it('fits the status schema', () => {
    const plan = planBursts(input({ slots: slots(4), jobs: [job('f5', 9)] }));
    const withJobs = (burstJobs: unknown) =>
      validateMiniClusterV1alpha1({
        apiVersion: API_VERSION_V1ALPHA1,
        kind: 'MiniCluster',
        metadata: { name: 'flux-sample' },
        spec: { containers: [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest' }] },
        status: { burstJobs },
      });
    assert.equal(withJobs(unservedJobs(plan)).ok, true, JSON.stringify(withJobs(unservedJobs(plan))));
    assert.equal(withJobs([{ id: 'f5', reason: 'Later', message: '' }]).ok, false);
  });
});

describe('cannotFitEvents', () => {
  it('warns once for each job that newly cannot fit, not for jobs waiting for capacity', () => {
    const next = [record('f1', 'ExceedsDeclaredHosts'), record('f2', 'NoFreeCapacity')];
    assert.deepEqual(cannotFitEvents(undefined, next), [
      { type: 'Warning', reason: 'JobCannotFit', note: 'f1: ExceedsDeclaredHosts' },
    ]);
    assert.deepEqual(cannotFitEvents(next, next), []);
  });

  it('warns again when the reason changes, and for a waiting job that turns out never to fit', () => {
    const before = [record('f1', 'ExceedsDeclaredHosts'), record('f2', 'NoFreeCapacity')];
    const after = [record('f1', 'ExceedsMaxBurstNodes'), record('f2', 'ExceedsTargetCapacity')];
    assert.deepEqual(
      cannotFitEvents(before, after).map((event) => event.note),
      ['f1: ExceedsMaxBurstNodes', 'f2: ExceedsTargetCapacity'],
    );
  });

  it('is silent when jobs leave the list', () => {
    assert.deepEqual(cannotFitEvents([record('f1', 'NoBurstSlots')], []), []);
  });
});

describe('burstingCondition', () => {
  it('is Idle with neither bursts nor unserved jobs', () => {
    assert.deepEqual(burstingCondition([], []), {
      type: 'Bursting',
      status: 'False',
      reason: 'Idle',
      message: 'no burstable work needs more nodes',
    });
  });

  it('is Unserved when jobs wait that no burst serves', () => {
    assert.deepEqual(burstingCondition([], [record('f1', 'NoBurstSlots')]), {
      type: 'Bursting',
      status: 'False',
      reason: 'Unserved',
      message:
        'no burst clusters; 1 burstable job waits that no burst cluster serves (status.burstJobs says why)',
    });
  });

  it('is True with burst clusters, naming them and the unserved jobs', () => {
    assert.deepEqual(
      burstingCondition([READY_BURST], [record('f1', 'NoFreeCapacity'), record('f2', 'NoBurstSlots')]),
      {
        type: 'Bursting',
        status: 'True',
        reason: 'Bursting',
        message:
          'burst clusters: burst-0 (2 on in-cluster, Ready); 2 burstable jobs wait that no burst cluster serves (status.burstJobs says why)',
      },
    );
  });

  it('is NotReconciled when a burst has no status a minute after creation', () => {
    const condition = burstingCondition([READY_BURST], [], [READY_BURST]);
    assert.equal(condition.status, 'True');
    assert.equal(condition.reason, 'NotReconciled');
    assert.equal(
      condition.message,
      'burst-0 on in-cluster: no status a minute after creation, so no operator renders it there; install the operator on that cluster (flux-operator install --with-deployment) or set installOperator on its BurstTarget; burst clusters: burst-0 (2 on in-cluster, Ready)',
    );
  });
});
