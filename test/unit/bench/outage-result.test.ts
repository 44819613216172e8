import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  OUTAGE_TARGET_MS,
  outageLine,
  outageResult,
  type OutageRound,
  type OutageRunContext,
} from '../../bench/outage-result.ts';

const context: OutageRunContext = { rounds: 3, outageMs: 40_000, miniClusters: 5, machineCpus: 2 };

const round = (
  baselineMs: number,
  reconciledAfterReadyMs: number,
  apiServerReadyMs: number,
): OutageRound => ({
  baselineMs,
  reconciledAfterReadyMs,
  apiServerReadyMs,
});

describe('the --outage result line', () => {
  it('gives each round its figures, its ratio and whether it met the target', () => {
    const result = outageResult([round(400, 2_000, 7_000), round(500, 6_000, 9_000)], context);
    assert.deepEqual(result.per_round, [
      {
        round: 1,
        baseline_ms: 400,
        reconciled_after_ready_ms: 2_000,
        api_server_ready_ms: 7_000,
        ratio: 5,
        within_target: true,
      },
      {
        round: 2,
        baseline_ms: 500,
        reconciled_after_ready_ms: 6_000,
        api_server_ready_ms: 9_000,
        ratio: 12,
        within_target: false,
      },
    ]);
  });

  it('reports the medians, their ratio and the target', () => {
    const result = outageResult(
      [round(300, 3_000, 8_000), round(600, 2_400, 6_000), round(400, 9_000, 7_500)],
      context,
    );
    assert.equal(result.mode, 'outage');
    assert.equal(result.baseline_ms, 400);
    assert.equal(result.reconciled_after_ready_ms, 3_000);
    assert.equal(result.api_server_ready_ms, 7_500);
    assert.equal(result.ratio, 7.5);
    assert.equal(result.target_ms, OUTAGE_TARGET_MS);
    assert.equal(result.target_ms, 5_000);
    assert.equal(result.within_target, true);
    assert.equal(result.outage_ms, 40_000);
    assert.equal(result.rounds, 3);
  });

  it('takes the mean of the two middle rounds for an even count', () => {
    const result = outageResult([round(300, 4_000, 7_000), round(500, 6_500, 8_000)], context);
    assert.equal(result.reconciled_after_ready_ms, 5_250);
    assert.equal(result.baseline_ms, 400);
    assert.equal(result.within_target, false);
  });

  it('compares with the target before rounding: 5000.4 ms is not within 5000', () => {
    const result = outageResult([round(500, 5_000.4, 7_000)], context);
    assert.equal(result.reconciled_after_ready_ms, 5_000.4);
    assert.equal(result.within_target, false);
    assert.equal(result.per_round[0]?.within_target, false);
    assert.equal(outageResult([round(500, 5_000, 7_000)], context).within_target, true);
  });

  it('has no ratio for a baseline of 0, and is not within the target without rounds', () => {
    assert.equal(outageResult([round(0, 2_000, 7_000)], context).ratio, null);
    assert.equal(outageResult([round(0, 2_000, 7_000)], context).per_round[0]?.ratio, null);
    assert.equal(outageResult([], context).within_target, false);
  });

  it('is one JSON line', () => {
    const line = outageLine([round(450, 2_210, 7_140)], context);
    assert.ok(line.endsWith('}\n'));
    assert.equal(line.split('\n').length, 2);
    assert.equal((JSON.parse(line) as { ratio: number }).ratio, 4.91);
  });
});
