/**
 * Any scale-in of a MiniCluster (the autoscaler's, `kubectl scale`, an HPA on the scale subresource),
 * pure: the ranks that go are drained in Flux first, and the Job shrinks only once no job runs on
 * them, so no job is killed. A scale-up while a scale-in waits cancels it: its ranks are undrained.
 * Ranks the operator drained stay drained in Flux after their pods are gone, and are undrained when a
 * later scale-up brings them back. No I/O, no clock.
 */
import { busyRanks } from './autoscale.ts';
import type { FluxJob, QueueActions, RankStates } from './queue.ts';

/** The ranks [from, to). */
export function rankSpan(from: number, to: number): number[] {
  const ranks: number[] = [];
  for (let rank = from; rank < to; rank++) ranks.push(rank);
  return ranks;
}

export interface ScaleTarget {
  /** Brokers the Job runs now (its parallelism). */
  readonly running: number;
  /** Brokers asked for (spec.size). */
  readonly wanted: number;
  /** Ranks the operator drained and has not undrained yet. */
  readonly drainedByOperator: readonly number[];
}

/**
 * What to do in Flux before reading the queue: drain the ranks that go (those the operator has not
 * drained already), undrain the operator's drained ranks that stay or come back. Empty when nothing is
 * to be done (no exec is needed for it).
 */
export function scaleActions(target: ScaleTarget): { drain: number[]; undrain: number[] } {
  const { running, wanted, drainedByOperator } = target;
  const already = new Set(drainedByOperator);
  const drain = wanted < running ? rankSpan(wanted, running).filter((rank) => !already.has(rank)) : [];
  const undrain = drainedByOperator.filter((rank) => rank < wanted).sort((a, b) => a - b);
  return { drain, undrain };
}

export function hasActions(actions: QueueActions): boolean {
  return (actions.drain?.length ?? 0) > 0 || (actions.undrain?.length ?? 0) > 0;
}

/** The operator's drained ranks after `actions` were done. */
export function drainedAfter(drainedByOperator: readonly number[], actions: QueueActions): number[] {
  const undrained = new Set(actions.undrain ?? []);
  const drained = new Set([
    ...drainedByOperator.filter((rank) => !undrained.has(rank)),
    ...(actions.drain ?? []),
  ]);
  return [...drained].sort((a, b) => a - b);
}

export interface ScaleInReadiness {
  /** The Job may shrink to `wanted` now. */
  readonly ready: boolean;
  /** Ranks that go with a job still on them. */
  readonly busy: readonly number[];
  /** Ranks that go and Flux does not show drained (yet). */
  readonly undrained: readonly number[];
  /** Ids of the jobs on the busy ranks. */
  readonly jobs: readonly string[];
}

/** Whether the ranks [wanted, running) are drained and free in the queue as read after the drain. */
export function scaleInReadiness(
  target: Pick<ScaleTarget, 'running' | 'wanted'>,
  jobs: readonly FluxJob[],
  ranks: RankStates,
): ScaleInReadiness {
  const going = rankSpan(target.wanted, target.running);
  const busySet = busyRanks(jobs, ranks);
  const drained = new Set([...ranks.drained, ...ranks.draining]);
  const busy = going.filter((rank) => busySet.has(rank));
  const undrained = going.filter((rank) => !drained.has(rank));
  const goingSet = new Set(going);
  const onThem = jobs
    .filter((job) => (job.ranks ?? []).some((rank) => goingSet.has(rank)))
    .map((job) => job.id);
  return { ready: busy.length === 0 && undrained.length === 0, busy, undrained, jobs: onThem };
}
