/**
 * The autoscaler's decision, pure: from the Flux queue as read (pending jobs and the nodes they
 * need, running jobs and their ranks, each rank's state) and what is remembered of each rank's last
 * busy moment, the size a MiniCluster should have and why. No I/O, no clock: `nowMs` is a parameter.
 *
 * Growing: jobs waiting (NEW to SCHED) need nodes; free ranks (up, kept, nothing on them) and ranks
 * still starting (listed below size but down) will take some; the rest is what to add, within
 * maxSize. A job asking for more nodes than maxSize never runs here and is left out (a burstable one
 * is the bursting planner's). A job whose node count Flux does not know yet counts as one node.
 *
 * Shrinking: only the highest ranks can go (an indexed Job removes its highest indexes), so the size
 * falls while rank size-1 has been idle for idleSeconds, down to minSize, and never while a job waits.
 * A rank not seen before counts as busy now: idleness is measured from the first read that saw it.
 */
import type { FluxJob, FluxJobState, RankStates } from './queue.ts';

export interface AutoscaleSettings {
  readonly minSize: number;
  readonly maxSize: number;
  readonly idleSeconds: number;
}

export interface AutoscaleInput {
  /** Brokers asked for now (spec.size). */
  readonly size: number;
  readonly settings: AutoscaleSettings;
  readonly jobs: readonly FluxJob[];
  readonly ranks: RankStates;
  /** Each rank's last busy time (ms since the epoch) as remembered from earlier reads. */
  readonly lastBusyMs: ReadonlyMap<number, number>;
  readonly nowMs: number;
}

export type AutoscaleReason = 'JobsWaiting' | 'AtMaxSize' | 'BrokersIdle' | 'Steady';

export interface AutoscaleDecision {
  readonly size: number;
  /** The ranks that go (size..previous size-1), to drain first; empty unless shrinking. */
  readonly drain: readonly number[];
  readonly reason: AutoscaleReason;
  readonly message: string;
  /** Each kept rank's last busy time after this read, to remember for the next one. */
  readonly lastBusyMs: ReadonlyMap<number, number>;
}

const PENDING: ReadonlySet<FluxJobState> = new Set(['NEW', 'DEPEND', 'PRIORITY', 'SCHED']);
const HOLDING: ReadonlySet<FluxJobState> = new Set(['RUN', 'CLEANUP']);

export function isPending(job: FluxJob): boolean {
  return PENDING.has(job.state);
}

export function isRunning(job: FluxJob): boolean {
  return HOLDING.has(job.state);
}

/** Ranks with work on them: a running job's ranks, allocated ranks, drained ranks still draining. */
export function busyRanks(jobs: readonly FluxJob[], ranks: RankStates): Set<number> {
  const busy = new Set<number>([...ranks.allocated, ...ranks.draining]);
  for (const job of jobs) if (isRunning(job)) for (const rank of job.ranks ?? []) busy.add(rank);
  return busy;
}

/** "3", "2-3": a range of ranks for messages. */
export function rankRange(from: number, to: number): string {
  return from === to ? `${from}` : `${from}-${to}`;
}

export function decideAutoscale(input: AutoscaleInput): AutoscaleDecision {
  const { size, settings, jobs, ranks, nowMs } = input;
  const { minSize, maxSize, idleSeconds } = settings;
  const busy = busyRanks(jobs, ranks);
  const up = new Set(ranks.up);
  const down = new Set(ranks.down);
  const unusable = new Set([...ranks.drained, ...ranks.draining]);

  const lastBusyMs = new Map<number, number>();
  for (let rank = 0; rank < size; rank++) {
    lastBusyMs.set(rank, busy.has(rank) ? nowMs : (input.lastBusyMs.get(rank) ?? nowMs));
  }
  const keep = (partial: Omit<AutoscaleDecision, 'lastBusyMs' | 'drain'>): AutoscaleDecision => ({
    ...partial,
    drain: [],
    lastBusyMs,
  });

  const waiting = jobs.filter(isPending).map((job) => Math.max(job.nnodes, 1));
  const fitting = waiting.filter((nodes) => nodes <= maxSize);
  const need = fitting.reduce((sum, nodes) => sum + nodes, 0);
  let free = 0;
  let starting = 0;
  for (let rank = 0; rank < size; rank++) {
    if (unusable.has(rank) || busy.has(rank)) continue;
    if (up.has(rank)) free++;
    else if (down.has(rank)) starting++;
  }
  const missing = need - free - starting;
  if (missing > 0) {
    const jobsText = `${fitting.length} job${fitting.length === 1 ? '' : 's'} wait${fitting.length === 1 ? 's' : ''} for ${need} node${need === 1 ? '' : 's'}`;
    const haveText = `${free} free, ${starting} starting`;
    const wanted = Math.min(maxSize, size + missing);
    if (wanted > size) {
      return keep({
        size: wanted,
        reason: 'JobsWaiting',
        message: `${jobsText} (${haveText}): ${size} -> ${wanted} brokers${wanted < size + missing ? ` (maxSize ${maxSize})` : ''}`,
      });
    }
    return keep({
      size,
      reason: 'AtMaxSize',
      message: `${jobsText} (${haveText}) and the MiniCluster is at maxSize ${maxSize}`,
    });
  }
  if (waiting.length > 0) {
    const tooBig = waiting.length - fitting.length;
    return keep({
      size,
      reason: 'Steady',
      message:
        `${fitting.length} waiting job${fitting.length === 1 ? '' : 's'} fit on the brokers up or starting` +
        (tooBig > 0 ? `; ${tooBig} ask for more nodes than maxSize ${maxSize} (never here)` : ''),
    });
  }

  const idleMs = idleSeconds * 1000;
  let wanted = size;
  while (wanted > minSize) {
    const rank = wanted - 1;
    const last = lastBusyMs.get(rank) ?? nowMs;
    if (busy.has(rank) || nowMs - last < idleMs) break;
    wanted--;
  }
  if (wanted < size) {
    const drain: number[] = [];
    for (let rank = wanted; rank < size; rank++) drain.push(rank);
    for (const rank of drain) lastBusyMs.delete(rank);
    return {
      size: wanted,
      drain,
      reason: 'BrokersIdle',
      message: `rank${drain.length === 1 ? '' : 's'} ${rankRange(wanted, size - 1)} had no job for ${idleSeconds}s: ${size} -> ${wanted} brokers (minSize ${minSize})`,
      lastBusyMs,
    };
  }
  return keep({ size, reason: 'Steady', message: `no job waits; ${busy.size} of ${size} brokers busy` });
}
