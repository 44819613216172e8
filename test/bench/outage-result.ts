// The one JSON line `npm run bench -- --outage` prints, from the rounds it measured.
import { round } from './process-metrics.ts';
import { median } from './view-result.ts';

/** The target: the operator's part within 5 s of the API server's readiness (issue 15). */
export const OUTAGE_TARGET_MS = 5_000;

/** What one round measured (milliseconds). */
export interface OutageRound {
  /** The work on the healthy cluster, from its start until every change was in the Jobs. */
  baselineMs: number;
  /** The same work after the outage, from the API server's readiness until every change was in the Jobs. */
  reconciledAfterReadyMs: number;
  /** From `cluster:up`'s start to the API server's readiness (/readyz): the server's own part. */
  apiServerReadyMs: number;
}

export interface OutageRunContext {
  rounds: number;
  outageMs: number;
  /** MiniClusters made before the work, in each of the round's two sets. */
  miniClusters: number;
  machineCpus: number;
}

/** Outage over baseline; null when the baseline is 0 (nothing to compare with). */
function ratio(outage: number, baseline: number): number | null {
  return baseline === 0 ? null : round(outage / baseline);
}

export function outageResult(rounds: readonly OutageRound[], context: OutageRunContext) {
  // Compared with the target unrounded: 5000.4 ms is not within 5000.
  const reconciled = median(rounds.map((each) => each.reconciledAfterReadyMs));
  const baseline = median(rounds.map((each) => each.baselineMs));
  return {
    mode: 'outage',
    rounds: context.rounds,
    outage_ms: context.outageMs,
    miniclusters: context.miniClusters,
    work: 'create 2, scale 1 from 3 to 5, delete 1, delete 1 Job (made again)',
    machine_cpus: context.machineCpus,
    per_round: rounds.map((each, index) => ({
      round: index + 1,
      baseline_ms: round(each.baselineMs),
      reconciled_after_ready_ms: round(each.reconciledAfterReadyMs),
      api_server_ready_ms: round(each.apiServerReadyMs),
      ratio: ratio(each.reconciledAfterReadyMs, each.baselineMs),
      within_target: each.reconciledAfterReadyMs <= OUTAGE_TARGET_MS,
    })),
    baseline_ms: round(baseline),
    reconciled_after_ready_ms: round(reconciled),
    api_server_ready_ms: round(median(rounds.map((each) => each.apiServerReadyMs))),
    // The medians' ratio: what the outage adds to the operator's part of the same work.
    ratio: ratio(reconciled, baseline),
    target_ms: OUTAGE_TARGET_MS,
    within_target: rounds.length > 0 && reconciled <= OUTAGE_TARGET_MS,
  };
}

export function outageLine(...args: Parameters<typeof outageResult>): string {
  return `${JSON.stringify(outageResult(...args))}\n`;
}
