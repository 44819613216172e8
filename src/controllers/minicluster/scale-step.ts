/**
 * The scale step of a MiniCluster pass (docs/elastic.md): for an autoscaled MiniCluster, read the
 * Flux queue every pollSeconds (one exec into the lead broker, drains and undrains included) and
 * decide its size (src/burst/autoscale.ts); for any MiniCluster asked for fewer brokers than its Job
 * runs, drain the ranks that go and hold the Job at its size until no job runs on them
 * (src/burst/scale-in.ts). A MiniCluster neither autoscaled nor scaling in costs nothing here.
 *
 * When the queue cannot be read during a scale-in: a read that times out, prints garbage or finds
 * Flux not answering holds the Job (Flux may be there, busy or starting); no running lead pod, or an
 * exec the pod refuses, means no Flux instance is there to run a job, and the Job shrinks at once,
 * which the status and a warning event say.
 */
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import {
  CONDITION_DRAINING,
  DEFAULT_DRAIN_SECONDS,
  DEFAULT_POLL_SECONDS,
  LABEL_JOB_COMPLETION_INDEX,
} from '../../api/index.ts';
import type { MiniClusterStatus } from '../../api/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import type { FluxQueueCounts } from '../../observability/metrics.ts';
import {
  decideAutoscale,
  isPending,
  isRunning,
  rankRange,
  type AutoscaleDecision,
} from '../../burst/autoscale.ts';
import { FluxQueueReadError } from '../../burst/flux-queue-error.ts';
import { formatIdset, parseIdset } from '../../burst/flux-queue-parse.ts';
import type { FluxQueueReader, QueueActions, QueueSnapshot } from '../../burst/queue.ts';
import { drainedAfter, hasActions, scaleActions, scaleInReadiness } from '../../burst/scale-in.ts';
import { jobFinished } from './job-finished.ts';
import { iso } from './burst-step.ts';
import type { DesiredCondition, TransitionEvent } from './status.ts';

export type AutoscaleStatus = NonNullable<MiniClusterStatus['autoscale']>;

/** Receives a MiniCluster's queue counts after each read (undefined: its queue is no longer read). */
export type FluxQueueObserver = (namespace: string, name: string, queue: FluxQueueCounts | undefined) => void;

/** The metrics' counts of a snapshot. */
export function fluxQueueCounts(snapshot: QueueSnapshot): FluxQueueCounts {
  const counts = queueCounts(snapshot);
  return {
    jobs: { pending: counts.pending, running: counts.running },
    nodes: {
      up: counts.nodesUp,
      down: counts.nodesDown,
      allocated: counts.nodesAllocated,
      free: counts.nodesUp - counts.nodesAllocated,
      draining: counts.nodesDraining,
      drained: counts.nodesDrained,
    },
  };
}

export interface ScaleEnvironment {
  queueReader(miniCluster: DefaultedMiniCluster, leadPod: V1Pod): FluxQueueReader;
}

/**
 * What the step remembers of one MiniCluster between passes (in memory: a restart starts afresh from
 * the live objects). The Job size and status it last decided are preferred to the cache's, which may
 * not have seen the last writes yet: a stale `drainedRanks` would forget ranks to undrain.
 */
export interface ScaleMemory {
  lastReadMs?: number;
  lastBusyMs: ReadonlyMap<number, number>;
  /** The Job size last decided (what was rendered and applied). */
  jobSize?: number;
  /** status.autoscale as last decided. */
  autoscale?: AutoscaleStatus;
  /** The Draining condition as last decided (null: none). */
  draining?: DesiredCondition | null;
}

export interface ScaleInput {
  readonly miniCluster: DefaultedMiniCluster;
  readonly job: V1Job | undefined;
  readonly pods: readonly V1Pod[];
  readonly previous: MiniClusterStatus | undefined;
  readonly memory: ScaleMemory;
  readonly now: Date;
}

export interface ScaleOutcome {
  /** Brokers the Job is rendered with this pass (held above spec.size while a scale-in drains). */
  readonly jobSize: number;
  /** status.autoscale and the Draining condition; undefined: leave both as they were. */
  readonly status?: { readonly autoscale: AutoscaleStatus; readonly condition?: DesiredCondition };
  readonly events: readonly TransitionEvent[];
  /** A new spec.size the autoscaler decided, with why. */
  readonly resize?: AutoscaleDecision;
  /** The queue as read this pass, for the metrics and the bursting step. */
  readonly snapshot?: QueueSnapshot;
  readonly memory: ScaleMemory;
  readonly requeueAfterMs?: number;
}

/**
 * Reasons of a failed read that mean no Flux instance is there to hold a job: the pod is gone, or
 * refuses exec (a pod that runs nothing). A Flux that does not answer (yet) holds the Job instead.
 */
const NO_INSTANCE_REASONS = new Set(['PodNotFound', 'ExecFailed']);

function leadPodOf(pods: readonly V1Pod[]): V1Pod | undefined {
  return pods.find(
    (pod) =>
      pod.metadata?.labels?.[LABEL_JOB_COMPLETION_INDEX] === '0' &&
      pod.status?.phase === 'Running' &&
      !pod.metadata.deletionTimestamp,
  );
}

/** status.autoscale.queue from a snapshot. */
export function queueCounts(snapshot: QueueSnapshot): NonNullable<AutoscaleStatus['queue']> {
  const ranks = snapshot.ranks;
  return {
    pending: snapshot.jobs.filter(isPending).length,
    running: snapshot.jobs.filter(isRunning).length,
    nodesUp: ranks?.up.length ?? snapshot.nodes.up,
    nodesDown: ranks?.down.length ?? 0,
    nodesAllocated: ranks?.allocated.length ?? snapshot.nodes.up - snapshot.nodes.free,
    nodesDraining: ranks?.draining.length ?? 0,
    nodesDrained: ranks?.drained.length ?? 0,
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export async function scaleStep(environment: ScaleEnvironment, input: ScaleInput): Promise<ScaleOutcome> {
  const outcome = await decideScale(environment, input);
  const { status } = outcome;
  return {
    ...outcome,
    memory: {
      ...outcome.memory,
      jobSize: outcome.jobSize,
      ...(status ? { autoscale: status.autoscale, draining: status.condition ?? null } : {}),
    },
  };
}

async function decideScale(environment: ScaleEnvironment, input: ScaleInput): Promise<ScaleOutcome> {
  const { miniCluster, job, pods, previous, memory, now } = input;
  const size = miniCluster.spec.size;
  const settings = miniCluster.spec.autoscale;
  const before: AutoscaleStatus = memory.autoscale ?? previous?.autoscale ?? {};
  const lastDraining =
    memory.draining !== undefined
      ? (memory.draining ?? undefined)
      : previous?.conditions?.find((c) => c.type === CONDITION_DRAINING);
  const hadDraining = lastDraining !== undefined;
  // Not scaling in: a scale-in that waited ended (False, kept as it was) or was cancelled.
  const settledDraining: DesiredCondition | undefined =
    lastDraining?.status === 'True'
      ? {
          type: CONDITION_DRAINING,
          status: 'False',
          reason: 'Cancelled',
          message: `spec.size ${size}: no rank to drain, the scale-in was cancelled`,
        }
      : lastDraining;
  const running = memory.jobSize ?? job?.spec?.parallelism ?? size;
  const drainedByOperator = [...parseIdset(before.drainedRanks ?? '')];
  const pollMs = (settings?.pollSeconds ?? DEFAULT_POLL_SECONDS) * 1000;
  const drainMs = (settings?.drainSeconds ?? DEFAULT_DRAIN_SECONDS) * 1000;
  const nowMs = now.getTime();

  if (!job || jobFinished(job)) return { jobSize: size, events: [], memory };
  const actions: QueueActions = scaleActions({ running, wanted: size, drainedByOperator });
  const scalingIn = size < running;
  const readDue = nowMs - (memory.lastReadMs ?? Number.NEGATIVE_INFINITY) >= pollMs;
  const wantsRead = hasActions(actions) || ((settings !== undefined || scalingIn) && readDue);
  if (!wantsRead) {
    const remaining = Math.max(1, pollMs - (nowMs - (memory.lastReadMs ?? nowMs)));
    if (scalingIn) return { jobSize: running, events: [], memory, requeueAfterMs: remaining };
    const idle: ScaleOutcome = { jobSize: size, events: [], memory };
    const autoscale = withoutUndefined({ ...before, scaleIn: undefined });
    const settled =
      before.scaleIn !== undefined || lastDraining?.status === 'True'
        ? { ...idle, status: settledDraining ? { autoscale, condition: settledDraining } : { autoscale } }
        : idle;
    return settings ? { ...settled, requeueAfterMs: remaining } : settled;
  }

  const events: TransitionEvent[] = [];
  const shrinkUnchecked = (why: string): ScaleOutcome => {
    const message = `spec.size ${size} < ${running} brokers and ${why}: no Flux instance holds a job there, so the Job shrinks without draining`;
    events.push({ type: 'Warning', reason: 'ScaledInWithoutDrain', note: message });
    const autoscale = withoutUndefined({
      ...before,
      scaleIn: undefined,
      readError: why,
      lastChange: { fromSize: running, toSize: size, reason: 'ScaledInWithoutDrain', message, at: iso(now) },
    });
    const condition: DesiredCondition | undefined = hadDraining
      ? { type: CONDITION_DRAINING, status: 'False', reason: 'ScaledInWithoutDrain', message }
      : undefined;
    return {
      jobSize: size,
      events,
      memory,
      status: condition ? { autoscale, condition } : { autoscale },
      requeueAfterMs: pollMs,
    };
  };

  const leadPod = leadPodOf(pods);
  if (!leadPod) {
    if (scalingIn) return shrinkUnchecked('the lead broker pod is not running');
    return { jobSize: size, events, memory, requeueAfterMs: pollMs };
  }

  let snapshot: QueueSnapshot;
  try {
    snapshot = await environment.queueReader(miniCluster, leadPod).snapshot(actions);
  } catch (error) {
    if (!(error instanceof FluxQueueReadError)) throw error;
    const why = `reading the Flux queue: ${error.message}`;
    const read = { ...memory, lastReadMs: nowMs };
    if (scalingIn && NO_INSTANCE_REASONS.has(error.reason)) return { ...shrinkUnchecked(why), memory: read };
    const since = before.scaleIn?.since ?? iso(now);
    const autoscale = withoutUndefined({
      ...before,
      readError: why,
      scaleIn: scalingIn ? { fromSize: running, toSize: size, since } : undefined,
    });
    const condition = scalingIn
      ? drainingCondition(
          nowMs - Date.parse(since) >= drainMs,
          `${why}; the Job keeps ${running} brokers until the ranks that go are seen free`,
          drainMs,
        )
      : settledDraining;
    return {
      jobSize: scalingIn ? running : size,
      events,
      memory: read,
      status: condition ? { autoscale, condition } : { autoscale },
      requeueAfterMs: pollMs,
    };
  }

  const drained = drainedAfter(drainedByOperator, actions);
  let lastBusyMs = memory.lastBusyMs;
  let resize: AutoscaleDecision | undefined;
  const autoscale: AutoscaleStatus = withoutUndefined({
    ...before,
    queue: queueCounts(snapshot),
    readError: undefined,
    drainedRanks: drained.length > 0 ? formatIdset(drained) : undefined,
  });
  if (actions.undrain && actions.undrain.length > 0)
    events.push({
      type: 'Normal',
      reason: 'Undrained',
      note: `ranks ${formatIdset(actions.undrain)} undrained: spec.size ${size} keeps them`,
    });

  let jobSize = size;
  let condition: DesiredCondition | undefined;
  if (scalingIn && snapshot.ranks) {
    const readiness = scaleInReadiness({ running, wanted: size }, snapshot.jobs, snapshot.ranks);
    const going = rankRange(size, running - 1);
    // Ranks Flux does not show drained (an instance that forgot its drains) are drained again next pass.
    const kept = drained.filter((rank) => !readiness.undrained.includes(rank));
    if (kept.length > 0) autoscale.drainedRanks = formatIdset(kept);
    else delete autoscale.drainedRanks;
    if (readiness.ready) {
      const asked =
        before.lastChange?.toSize === size && before.lastChange.reason !== 'ScaleInDone'
          ? `asked by the autoscaler: ${before.lastChange.message}`
          : 'asked through spec.size';
      const message = `ranks ${going} drained with no job on them: ${running} -> ${size} brokers (${asked})`;
      events.push({ type: 'Normal', reason: 'ScaleInDone', note: message });
      autoscale.lastChange = {
        fromSize: running,
        toSize: size,
        reason: 'ScaleInDone',
        message,
        at: iso(now),
      };
      delete autoscale.scaleIn;
      if (hadDraining) condition = { type: CONDITION_DRAINING, status: 'False', reason: 'Drained', message };
    } else {
      jobSize = running;
      const since = before.scaleIn?.toSize === size ? before.scaleIn.since : iso(now);
      if (before.scaleIn?.toSize !== size)
        events.push({
          type: 'Normal',
          reason: 'Draining',
          note: `ranks ${going} drained for spec.size ${size}; the Job shrinks when no job runs on them`,
        });
      autoscale.scaleIn = { fromSize: running, toSize: size, since };
      const waitingFor = [
        readiness.jobs.length > 0
          ? `jobs ${readiness.jobs.join(', ')} on ranks ${formatIdset(readiness.busy)}`
          : '',
        readiness.busy.length > 0 && readiness.jobs.length === 0
          ? `work on ranks ${formatIdset(readiness.busy)}`
          : '',
        readiness.undrained.length > 0
          ? `ranks ${formatIdset(readiness.undrained)} not yet drained in Flux`
          : '',
      ].filter((part) => part !== '');
      const timedOut = nowMs - Date.parse(since) >= drainMs;
      condition = drainingCondition(
        timedOut,
        `waiting for ${waitingFor.join('; ')}; the Job keeps ${running} brokers`,
        drainMs,
      );
      if (timedOut && lastDraining?.reason !== 'DrainTimedOut')
        events.push({ type: 'Warning', reason: 'DrainTimedOut', note: condition.message });
    }
  } else if (scalingIn) {
    // A reader without rank states (not the exec reader): nothing shows the ranks free.
    jobSize = running;
    condition = lastDraining;
  } else {
    condition = settledDraining;
    delete autoscale.scaleIn;
  }

  if (settings && snapshot.ranks) {
    const decision = decideAutoscale({
      size,
      settings: {
        minSize: settings.minSize,
        maxSize: miniCluster.spec.maxSize,
        idleSeconds: settings.idleSeconds,
      },
      jobs: snapshot.jobs,
      ranks: snapshot.ranks,
      lastBusyMs,
      nowMs,
    });
    lastBusyMs = decision.lastBusyMs;
    // A scale-in under way finishes before the autoscaler shrinks again; growing cancels it.
    if (decision.size > size || (decision.size < size && !scalingIn)) {
      resize = decision;
      const reason = decision.size > size ? 'AutoscaledUp' : 'AutoscaledDown';
      events.push({ type: 'Normal', reason, note: decision.message });
      autoscale.lastChange = {
        fromSize: size,
        toSize: decision.size,
        reason: decision.reason,
        message: decision.message,
        at: iso(now),
      };
    }
  }

  const status = condition ? { autoscale, condition } : { autoscale };
  return {
    jobSize,
    status,
    events,
    snapshot,
    memory: { lastReadMs: nowMs, lastBusyMs },
    requeueAfterMs: pollMs,
    ...(resize ? { resize } : {}),
  };
}

function drainingCondition(timedOut: boolean, message: string, drainMs: number): DesiredCondition {
  return timedOut
    ? {
        type: CONDITION_DRAINING,
        status: 'True',
        reason: 'DrainTimedOut',
        message: `not done within drainSeconds (${drainMs / 1000}s), not forced: ${message}; end those jobs or scale back up`,
      }
    : { type: CONDITION_DRAINING, status: 'True', reason: 'WaitingForJobs', message };
}
