/**
 * Burstable jobs that no burst cluster serves, as status lists them (status.burstJobs), and the
 * JobCannotFit events they give. Pure: the bursting step passes the plan and the previous status.
 *
 * An event is tied to a change of the list (a job newly listed as never fitting, or its reason
 * changed), so it is emitted once per job and reason, after the status write that shows it, and a
 * failed write emits it on the next pass instead of losing it.
 */
import { CONDITION_BURSTING, MAX_LISTED_BURST_JOBS, type MiniClusterStatus } from '../../api/index.ts';
import { compareIds, type BurstPlan } from '../../burst/planner.ts';
import type { DesiredCondition, TransitionEvent } from './status.ts';

type BurstRecord = NonNullable<MiniClusterStatus['bursts']>[number];

export type BurstJobRecord = NonNullable<MiniClusterStatus['burstJobs']>[number];

/** Long enough for every planner message; a bound so status stays small with many slots. */
const MESSAGE_MAX_LENGTH = 1024;

function bounded(message: string): string {
  return message.length <= MESSAGE_MAX_LENGTH ? message : `${message.slice(0, MESSAGE_MAX_LENGTH - 3)}...`;
}

/** The plan's unserved jobs (never fitting, then waiting for capacity), ordered by job id, at most 32. */
export function unservedJobs(plan: Pick<BurstPlan, 'unsatisfiable' | 'waiting'>): BurstJobRecord[] {
  return [...plan.unsatisfiable, ...plan.waiting]
    .map((verdict) => ({ id: verdict.jobId, reason: verdict.reason, message: bounded(verdict.message) }))
    .sort((a, b) => compareIds(a.id, b.id))
    .slice(0, MAX_LISTED_BURST_JOBS);
}

/** A Warning for each job that newly cannot fit (or cannot fit for a new reason). */
export function cannotFitEvents(
  previous: readonly BurstJobRecord[] | undefined,
  next: readonly BurstJobRecord[],
): TransitionEvent[] {
  const before = new Map((previous ?? []).map((job) => [job.id, job.reason]));
  return next
    .filter((job) => job.reason !== 'NoFreeCapacity' && before.get(job.id) !== job.reason)
    .map((job) => ({ type: 'Warning', reason: 'JobCannotFit', note: job.message }));
}

/**
 * The Bursting condition after a pass that read the queue and acted: True while burst clusters
 * exist (NotReconciled when some have no status a minute after creation: no operator there
 * renders them); otherwise False, Idle, or Unserved when burstable jobs wait that no burst serves.
 */
export function burstingCondition(
  bursts: readonly BurstRecord[],
  jobs: readonly BurstJobRecord[],
  unanswered: readonly Pick<BurstRecord, 'slot' | 'target'>[] = [],
): DesiredCondition {
  const unserved =
    jobs.length === 0
      ? ''
      : `; ${jobs.length === 1 ? '1 burstable job waits' : `${jobs.length} burstable jobs wait`} that no burst cluster serves (status.burstJobs says why)`;
  if (bursts.length > 0) {
    const active = bursts.map((b) => `${b.slot} (${b.size} on ${b.target}, ${b.state})`).join(', ');
    const message = `burst clusters: ${active}${unserved}`;
    if (unanswered.length > 0) {
      const where = unanswered.map((b) => `${b.slot} on ${b.target}`).join(', ');
      return {
        type: CONDITION_BURSTING,
        status: 'True',
        reason: 'NotReconciled',
        message: `${where}: no status a minute after creation, so no operator renders it there; install the operator on that cluster (flux-operator install --with-deployment) or set installOperator on its BurstTarget; ${message}`,
      };
    }
    return { type: CONDITION_BURSTING, status: 'True', reason: 'Bursting', message };
  }
  if (jobs.length > 0) {
    return {
      type: CONDITION_BURSTING,
      status: 'False',
      reason: 'Unserved',
      message: `no burst clusters${unserved}`,
    };
  }
  return {
    type: CONDITION_BURSTING,
    status: 'False',
    reason: 'Idle',
    message: 'no burstable work needs more nodes',
  };
}
