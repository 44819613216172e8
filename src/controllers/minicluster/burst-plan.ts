/**
 * Bursting, plan: what to create, grow, keep and delete, from an observation (burst-observe.ts).
 * Pure: the decisions are src/burst/planner.ts's; this adds what status and events say of them.
 */
import type { MiniClusterStatus } from '../../api/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import { planBursts, type BurstPlan } from '../../burst/planner.ts';
import { policyOfSpec, type BurstPolicy } from '../../burst/policy.ts';
import { cannotFitEvents, unservedJobs, type BurstJobRecord } from './burst-jobs.ts';
import type { BurstObservation } from './burst-observe.ts';
import type { TransitionEvent } from './status.ts';

export interface PlannedBursts {
  readonly plan: BurstPlan;
  readonly policy: BurstPolicy;
  /** Burstable jobs no burst cluster serves (status.burstJobs). */
  readonly jobs: BurstJobRecord[];
  /** Jobs newly found unable to fit, as events. */
  readonly events: TransitionEvent[];
}

export function planBurstActions(
  miniCluster: DefaultedMiniCluster,
  previous: MiniClusterStatus | undefined,
  observation: BurstObservation,
): PlannedBursts {
  const slots = (miniCluster.spec.flux.bursting?.clusters ?? []).map((slot) => ({
    name: slot.name,
    size: slot.size,
  }));
  const policy = policyOfSpec(miniCluster.spec.flux.bursting?.policy);
  const plan = planBursts({
    queue: observation.queue,
    localSize: miniCluster.spec.size,
    slots,
    clusters: observation.clusters,
    policy,
    now: observation.now,
  });
  const jobs = unservedJobs(plan);
  return { plan, policy, jobs, events: cannotFitEvents(previous?.burstJobs, jobs) };
}
