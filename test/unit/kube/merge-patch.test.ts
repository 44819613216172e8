import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergePatch } from '../../../src/kube/merge-patch.ts';

describe('mergePatch', () => {
  it('nulls the fields the next object drops, so a merge patch removes them', () => {
    assert.deepEqual(mergePatch({ size: 2, bursts: [], completionTime: 'x' }, { size: 3 }), {
      size: 3,
      bursts: null,
      completionTime: null,
    });
    assert.deepEqual(mergePatch({}, { size: 3 }), { size: 3 });
  });

  it('nulls dropped fields of nested objects too (ranks no longer drained), and replaces lists whole', () => {
    const scaleIn = { fromSize: 4, toSize: 2, since: '2026-01-01T00:00:00Z' };
    assert.deepEqual(
      mergePatch(
        {
          autoscale: { drainedRanks: '2-3', scaleIn },
          burstJobs: [{ id: 'f1', reason: 'NoFreeCapacity', message: 'm' }],
        },
        { autoscale: { readError: 'timed out' }, burstJobs: [] },
      ),
      { autoscale: { readError: 'timed out', drainedRanks: null, scaleIn: null }, burstJobs: [] },
    );
  });
});
