/**
 * A BurstTarget's status as a pure function of the last connection check, the events its changes
 * deserve, and the retry schedule. No I/O and no clock: `now` is a parameter.
 */
import { CONDITION_CONNECTED, type BurstTargetStatus, type Condition } from '../api/index.ts';
import type { TargetFailureReason } from './target-errors.ts';

/** The outcome of one check, without the clients (what status needs). */
export type CheckOutcome =
  | { readonly ok: true; readonly server: string; readonly version: string; readonly namespace: string }
  | { readonly ok: false; readonly reason: TargetFailureReason | 'InvalidSpec'; readonly message: string };

export interface TargetStatusInput {
  readonly generation: number | undefined;
  readonly previous: BurstTargetStatus | undefined;
  readonly outcome: CheckOutcome;
  readonly now: Date;
}

/** Reason of Connected=True. */
export const REASON_CONNECTED = 'Connected';

function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function connectedCondition(
  outcome: CheckOutcome,
): Pick<Condition, 'type' | 'status' | 'reason' | 'message'> {
  if (outcome.ok) {
    return {
      type: CONDITION_CONNECTED,
      status: 'True',
      reason: REASON_CONNECTED,
      message: `connected to ${outcome.server} (Kubernetes ${outcome.version}); burst MiniClusters go to namespace ${outcome.namespace}`,
    };
  }
  return { type: CONDITION_CONNECTED, status: 'False', reason: outcome.reason, message: outcome.message };
}

/**
 * The next status: the Connected condition (lastTransitionTime kept while its status holds), and on
 * success the server, version and lastConnectedTime; on failure those keep their last values, so
 * they say where the target was last reached.
 */
export function burstTargetStatus(input: TargetStatusInput): BurstTargetStatus {
  const { generation, previous, outcome, now } = input;
  const wanted = connectedCondition(outcome);
  const before = previous?.conditions?.find((condition) => condition.type === CONDITION_CONNECTED);
  const condition: Condition = {
    ...wanted,
    lastTransitionTime:
      before && before.status === wanted.status ? before.lastTransitionTime : isoSeconds(now),
  };
  if (generation !== undefined) condition.observedGeneration = generation;
  const others = (previous?.conditions ?? []).filter((c) => c.type !== CONDITION_CONNECTED);
  const status: BurstTargetStatus = { conditions: [...others, condition] };
  if (generation !== undefined) status.observedGeneration = generation;
  if (outcome.ok) {
    status.server = outcome.server;
    status.kubernetesVersion = outcome.version;
    status.lastConnectedTime = isoSeconds(now);
  } else {
    if (previous?.server !== undefined) status.server = previous.server;
    if (previous?.kubernetesVersion !== undefined) status.kubernetesVersion = previous.kubernetesVersion;
    if (previous?.lastConnectedTime !== undefined) status.lastConnectedTime = previous.lastConnectedTime;
  }
  return status;
}

export interface TargetEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly note: string;
}

/**
 * Events worth recording between two statuses: Connected when it becomes True, a warning when it
 * becomes False or fails for a new reason. A target failing the same way at every retry records
 * one event, not one per retry.
 */
export function targetTransitionEvents(
  previous: BurstTargetStatus | undefined,
  next: BurstTargetStatus,
): TargetEvent[] {
  const before = previous?.conditions?.find((c) => c.type === CONDITION_CONNECTED);
  const after = next.conditions?.find((c) => c.type === CONDITION_CONNECTED);
  if (!after) return [];
  if (after.status === 'True') {
    return before?.status === 'True'
      ? []
      : [{ type: 'Normal', reason: REASON_CONNECTED, note: after.message }];
  }
  if (before?.status === after.status && before.reason === after.reason) return [];
  return [{ type: 'Warning', reason: after.reason, note: after.message }];
}

/** Whether writing `next` would change anything: status is written only when it does. */
export function targetStatusChanged(
  previous: BurstTargetStatus | undefined,
  next: BurstTargetStatus,
): boolean {
  return JSON.stringify(canonical(previous ?? {})) !== JSON.stringify(canonical(next));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, child]) => [key, canonical(child)]),
  );
}

export interface RetrySchedule {
  /** Re-check interval of a connected target. */
  readonly recheckMs: number;
  /** First retry after a failure; doubles with every further failure. */
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

/** 1 min between checks of a healthy target; 5 s, 10 s, ... up to 5 min after failures. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  recheckMs: 60_000,
  initialBackoffMs: 5_000,
  maxBackoffMs: 300_000,
};

/** When to check again: `failures` consecutive failures so far (0 after a success). */
export function nextCheckDelayMs(failures: number, schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE): number {
  if (failures <= 0) return schedule.recheckMs;
  const delay = schedule.initialBackoffMs * 2 ** Math.min(failures - 1, 30);
  return Math.min(delay, schedule.maxBackoffMs);
}
