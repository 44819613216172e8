/**
 * The scale step against a scripted queue reader: when it reads (and when not), what it drains and
 * undrains, when the Job may shrink, and what the status and events say.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { MiniClusterV1alpha1Spec, MiniClusterStatus } from '../../../../src/api/index.ts';
import { FluxQueueReadError, type FluxQueueReadReason } from '../../../../src/burst/flux-queue-error.ts';
import type { FluxJob, QueueActions, QueueSnapshot, RankStates } from '../../../../src/burst/queue.ts';
import {
  scaleStep,
  type ScaleInput,
  type ScaleMemory,
  type ScaleOutcome,
} from '../../../../src/controllers/minicluster/scale-step.ts';
import { defaulted } from '../../render/fixtures.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');

/** A Flux instance as the reader shows it: drains and undrains change what the next read shows. */
class ScriptedQueue {
  jobs: FluxJob[] = [];
  ranks: RankStates = { up: [0], down: [], allocated: [], draining: [], drained: [] };
  readonly actions: QueueActions[] = [];
  failure: FluxQueueReadReason | undefined;
  reads = 0;

  reader = {
    snapshot: async (actions: QueueActions = {}): Promise<QueueSnapshot> => {
      this.reads++;
      if (this.failure) throw new FluxQueueReadError(this.failure, `scripted ${this.failure}`);
      this.actions.push(actions);
      const drained = new Set([...this.ranks.drained, ...this.ranks.draining]);
      for (const rank of actions.undrain ?? []) drained.delete(rank);
      for (const rank of actions.drain ?? []) drained.add(rank);
      const allocated = new Set(this.ranks.allocated);
      this.ranks = {
        ...this.ranks,
        draining: [...drained].filter((rank) => allocated.has(rank)).sort(),
        drained: [...drained].filter((rank) => !allocated.has(rank)).sort(),
      };
      return {
        takenAt: new Date(),
        jobs: this.jobs,
        nodes: { up: this.ranks.up.length, free: this.ranks.up.length - this.ranks.allocated.length },
        ranks: this.ranks,
      };
    },
  };
}

function runningJob(id: string, ranks: number[]): FluxJob {
  return { id, state: 'RUN', nnodes: ranks.length, ntasks: ranks.length, ncores: 0, burstable: false, ranks };
}

function job(parallelism: number): V1Job {
  return { metadata: { name: 'flux-sample' }, spec: { parallelism, template: {} } } as V1Job;
}

const LEAD: V1Pod = {
  metadata: { name: 'flux-sample-0-abcde', labels: { 'batch.kubernetes.io/job-completion-index': '0' } },
  status: { phase: 'Running' },
};

/** Passes of the step over one MiniCluster, carrying memory and the status as the controller does. */
function stepper(spec: Partial<MiniClusterV1alpha1Spec>, queue: ScriptedQueue) {
  let memory: ScaleMemory = { lastBusyMs: new Map() };
  let status: MiniClusterStatus | undefined;
  let parallelism = spec.size ?? 1;
  return {
    setParallelism(size: number) {
      parallelism = size;
    },
    async pass(atSeconds: number, over: Partial<MiniClusterV1alpha1Spec> = {}): Promise<ScaleOutcome> {
      const input: ScaleInput = {
        miniCluster: defaulted({ ...spec, ...over }),
        job: job(parallelism),
        pods: [LEAD],
        previous: status,
        memory,
        now: new Date(T0 + atSeconds * 1000),
      };
      const outcome = await scaleStep({ queueReader: () => queue.reader }, input);
      memory = outcome.memory;
      parallelism = outcome.jobSize;
      if (outcome.status) {
        const condition = outcome.status.condition;
        status = {
          autoscale: outcome.status.autoscale,
          ...(condition
            ? { conditions: [{ ...condition, lastTransitionTime: new Date(T0).toISOString() }] }
            : {}),
        };
      }
      return outcome;
    },
  };
}

const reasons = (outcome: ScaleOutcome) => outcome.events.map((event) => event.reason);

describe('scaleStep', () => {
  it('a MiniCluster neither autoscaled nor scaling in is not read', async () => {
    const queue = new ScriptedQueue();
    const mc = stepper({ size: 2, maxSize: 4 }, queue);
    const outcome = await mc.pass(0);
    assert.equal(queue.reads, 0);
    assert.equal(outcome.jobSize, 2);
    assert.equal(outcome.status, undefined);
    // Growing needs no read either (nothing was drained).
    assert.equal((await mc.pass(1, { size: 4 })).jobSize, 4);
    assert.equal(queue.reads, 0);
  });

  it('an autoscaled MiniCluster is read once per pollSeconds, however many passes', async () => {
    const queue = new ScriptedQueue();
    const mc = stepper({ size: 1, maxSize: 4, autoscale: { pollSeconds: 5 } }, queue);
    assert.equal((await mc.pass(0)).requeueAfterMs, 5000);
    const early = await mc.pass(2);
    assert.equal(queue.reads, 1);
    assert.equal(early.requeueAfterMs, 3000);
    await mc.pass(5);
    assert.equal(queue.reads, 2);
  });

  it('a scale-in drains the ranks that go, holds the Job while a job runs on one, and shrinks once it ends', async () => {
    const queue = new ScriptedQueue();
    queue.ranks = { up: [0, 1, 2, 3], down: [], allocated: [3], draining: [], drained: [] };
    queue.jobs = [runningJob('f3', [3])];
    const mc = stepper({ size: 4, maxSize: 4 }, queue);
    const held = await mc.pass(0, { size: 2 });
    assert.deepEqual(queue.actions.at(-1), { drain: [2, 3], undrain: [] });
    assert.equal(held.jobSize, 4);
    assert.deepEqual(reasons(held), ['Draining']);
    assert.equal(held.status?.condition?.reason, 'WaitingForJobs');
    assert.match(
      held.status?.condition?.message ?? '',
      /waiting for jobs f3 on ranks 3; the Job keeps 4 brokers/,
    );
    assert.deepEqual(held.status?.autoscale.scaleIn, {
      fromSize: 4,
      toSize: 2,
      since: '2026-03-01T12:00:00Z',
    });
    assert.equal(held.status?.autoscale.drainedRanks, '2-3');

    // Not polled again before pollSeconds (10 by default): still held, no read.
    assert.equal((await mc.pass(4, { size: 2 })).jobSize, 4);
    assert.equal(queue.reads, 1);

    // The job ends: drained, nothing allocated: the Job shrinks, and nothing is drained again.
    queue.jobs = [];
    queue.ranks = { ...queue.ranks, allocated: [] };
    const done = await mc.pass(10, { size: 2 });
    assert.deepEqual(queue.actions.at(-1), { drain: [], undrain: [] });
    assert.equal(done.jobSize, 2);
    assert.deepEqual(reasons(done), ['ScaleInDone']);
    assert.equal(done.status?.condition?.status, 'False');
    assert.equal(done.status?.autoscale.lastChange?.reason, 'ScaleInDone');
    assert.match(
      done.status?.autoscale.lastChange?.message ?? '',
      /ranks 2-3 drained with no job on them: 4 -> 2 brokers \(asked through spec.size\)/,
    );
    assert.equal(done.status?.autoscale.scaleIn, undefined);

    // Back to 4: the drained ranks are undrained as their brokers come back.
    const grown = await mc.pass(11, { size: 4 });
    assert.deepEqual(queue.actions.at(-1), { drain: [], undrain: [2, 3] });
    assert.equal(grown.jobSize, 4);
    assert.equal(grown.status?.autoscale.drainedRanks, undefined);
    assert.deepEqual(reasons(grown), ['Undrained']);
  });

  it('a drain not done within drainSeconds is reported once, never forced; a scale-up cancels it', async () => {
    const queue = new ScriptedQueue();
    queue.ranks = { up: [0, 1], down: [], allocated: [0, 1], draining: [], drained: [] };
    queue.jobs = [runningJob('f2', [0]), runningJob('f3', [1])];
    const spec = { size: 2, maxSize: 2, autoscale: { pollSeconds: 1, idleSeconds: 3600, drainSeconds: 5 } };
    const mc = stepper(spec, queue);
    await mc.pass(0);
    assert.equal((await mc.pass(1, { size: 1 })).status?.condition?.reason, 'WaitingForJobs');
    assert.equal((await mc.pass(5, { size: 1 })).status?.condition?.reason, 'WaitingForJobs');
    const late = await mc.pass(6, { size: 1 });
    assert.equal(late.jobSize, 2);
    assert.equal(late.status?.condition?.reason, 'DrainTimedOut');
    assert.match(
      late.status?.condition?.message ?? '',
      /^not done within drainSeconds \(5s\), not forced: waiting for jobs f3 on ranks 1/,
    );
    assert.deepEqual(reasons(late), ['DrainTimedOut']);
    assert.deepEqual(reasons(await mc.pass(7, { size: 1 })), []);

    const cancelled = await mc.pass(8, { size: 2 });
    assert.deepEqual(queue.actions.at(-1), { drain: [], undrain: [1] });
    assert.equal(cancelled.jobSize, 2);
    assert.equal(cancelled.status?.condition?.status, 'False');
    assert.equal(cancelled.status?.condition?.reason, 'Cancelled');
    assert.equal(cancelled.status?.autoscale.scaleIn, undefined);
  });

  it('no Flux to ask (the exec refused): shrinks at once and says so; a Flux slow or not answering: holds', async () => {
    const refused = new ScriptedQueue();
    refused.failure = 'ExecFailed';
    const outcome = await stepper({ size: 3, maxSize: 3 }, refused).pass(0, { size: 1 });
    assert.equal(outcome.jobSize, 1);
    assert.deepEqual(reasons(outcome), ['ScaledInWithoutDrain']);
    assert.equal(outcome.status?.autoscale.lastChange?.reason, 'ScaledInWithoutDrain');
    assert.match(outcome.status?.autoscale.readError ?? '', /scripted ExecFailed/);

    for (const failure of ['Timeout', 'FluxUnavailable', 'BadOutput'] as const) {
      const slow = new ScriptedQueue();
      slow.failure = failure;
      const held = await stepper({ size: 3, maxSize: 3 }, slow).pass(0, { size: 1 });
      assert.equal(held.jobSize, 3, failure);
      assert.equal(held.status?.condition?.reason, 'WaitingForJobs');
      assert.match(held.status?.condition?.message ?? '', new RegExp(`scripted ${failure}`));
    }
  });

  it('the autoscaler grows for waiting jobs and counts the queue', async () => {
    const queue = new ScriptedQueue();
    queue.ranks = { up: [0], down: [1, 2, 3], allocated: [0], draining: [], drained: [] };
    queue.jobs = [
      runningJob('f2', [0]),
      ...['f3', 'f4', 'f5'].map((id): FluxJob => ({
        id,
        state: 'SCHED',
        nnodes: 1,
        ntasks: 1,
        ncores: 0,
        burstable: false,
      })),
    ];
    const outcome = await stepper({ size: 1, maxSize: 4, autoscale: { idleSeconds: 30 } }, queue).pass(0);
    assert.equal(outcome.resize?.size, 4);
    assert.deepEqual(reasons(outcome), ['AutoscaledUp']);
    assert.deepEqual(outcome.status?.autoscale.queue, {
      pending: 3,
      running: 1,
      nodesUp: 1,
      nodesDown: 3,
      nodesAllocated: 1,
      nodesDraining: 0,
      nodesDrained: 0,
    });
    assert.equal(outcome.status?.autoscale.lastChange?.reason, 'JobsWaiting');
  });
});
