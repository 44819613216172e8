import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  STATUS_PROGRESS_INTERVAL_MS,
  STATUS_PROGRESS_WRITES_PER_SECOND,
  progressIntervalMs,
} from '../../../../src/controllers/minicluster/status-steps.ts';

describe('progressIntervalMs', () => {
  it('is 10 s while up to 200 MiniClusters start, then grows to keep progress writes at 20 a second', () => {
    assert.equal(STATUS_PROGRESS_INTERVAL_MS, 10_000);
    assert.equal(STATUS_PROGRESS_WRITES_PER_SECOND, 20);
    assert.deepEqual(
      [0, 1, 50, 200, 201, 1000, 8000].map(progressIntervalMs),
      [10_000, 10_000, 10_000, 10_000, 10_050, 50_000, 400_000],
    );
  });

  it('never lets more than 20 progress writes a second through, whatever the number starting', () => {
    for (const starting of [1, 250, 1000, 5000]) {
      const writesPerSecond = starting / (progressIntervalMs(starting) / 1000);
      assert.ok(writesPerSecond <= STATUS_PROGRESS_WRITES_PER_SECOND, `${starting}: ${writesPerSecond}`);
    }
  });
});
