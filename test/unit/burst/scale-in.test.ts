import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { drainedAfter, hasActions, scaleActions, scaleInReadiness } from '../../../src/burst/scale-in.ts';
import type { FluxJob, RankStates } from '../../../src/burst/queue.ts';

function running(id: string, ranks: number[]): FluxJob {
  return { id, state: 'RUN', nnodes: ranks.length, ntasks: ranks.length, ncores: 0, burstable: false, ranks };
}

function states(partial: Partial<RankStates>): RankStates {
  return { up: [0, 1, 2, 3], down: [], allocated: [], draining: [], drained: [], ...partial };
}

describe('scaleActions', () => {
  it('a scale-in drains exactly the ranks that go', () => {
    assert.deepEqual(scaleActions({ running: 4, wanted: 1, drainedByOperator: [] }), {
      drain: [1, 2, 3],
      undrain: [],
    });
  });

  it('no change and nothing drained: nothing to do (no exec)', () => {
    const actions = scaleActions({ running: 3, wanted: 3, drainedByOperator: [] });
    assert.equal(hasActions(actions), false);
  });

  it('a scale-up cancels a scale-in under way: its ranks are undrained', () => {
    assert.deepEqual(scaleActions({ running: 4, wanted: 4, drainedByOperator: [2, 3] }), {
      drain: [],
      undrain: [2, 3],
    });
  });

  it('a scale-in changed to a smaller one: the kept rank is undrained, the others stay drained', () => {
    // 4 -> 2 was under way (2, 3 drained); now 4 -> 3: rank 2 comes back, rank 3 still goes.
    assert.deepEqual(scaleActions({ running: 4, wanted: 3, drainedByOperator: [2, 3] }), {
      drain: [],
      undrain: [2],
    });
  });

  it('a scale-in under way drains only what the operator has not drained yet', () => {
    // 4 -> 3 drained rank 3; now 4 -> 1: ranks 1 and 2 are added.
    assert.deepEqual(scaleActions({ running: 4, wanted: 1, drainedByOperator: [3] }), {
      drain: [1, 2],
      undrain: [],
    });
    assert.equal(hasActions(scaleActions({ running: 4, wanted: 1, drainedByOperator: [1, 2, 3] })), false);
  });

  it('ranks removed earlier are undrained when a scale-up brings them back', () => {
    assert.deepEqual(scaleActions({ running: 1, wanted: 3, drainedByOperator: [1, 2, 3] }), {
      drain: [],
      undrain: [1, 2],
    });
    assert.deepEqual(drainedAfter([1, 2, 3], { undrain: [1, 2] }), [3]);
    assert.deepEqual(drainedAfter([3], { drain: [1, 2, 3] }), [1, 2, 3]);
  });
});

describe('scaleInReadiness', () => {
  it('ready when the ranks that go are drained and no job is on them', () => {
    const result = scaleInReadiness(
      { running: 4, wanted: 2 },
      [running('f1', [0])],
      states({
        allocated: [0],
        drained: [2, 3],
      }),
    );
    assert.deepEqual(result, { ready: true, busy: [], undrained: [], jobs: [] });
  });

  it('waits while a job runs on a rank that goes, and names it', () => {
    const jobs = [running('f1', [0]), running('f2', [3])];
    const result = scaleInReadiness(
      { running: 4, wanted: 2 },
      jobs,
      states({
        allocated: [0, 3],
        drained: [2],
        draining: [3],
      }),
    );
    assert.equal(result.ready, false);
    assert.deepEqual(result.busy, [3]);
    assert.deepEqual(result.jobs, ['f2']);
  });

  it('waits while Flux does not show a rank drained (the drain did not take)', () => {
    const result = scaleInReadiness({ running: 3, wanted: 2 }, [], states({ drained: [] }));
    assert.equal(result.ready, false);
    assert.deepEqual(result.undrained, [2]);
  });

  it('an allocated rank is busy even when the job listing missed it', () => {
    const result = scaleInReadiness({ running: 2, wanted: 1 }, [], states({ allocated: [1], draining: [1] }));
    assert.deepEqual(result.busy, [1]);
    assert.equal(result.ready, false);
  });
});
