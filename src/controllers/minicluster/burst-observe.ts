/**
 * Bursting, observe: what the plan starts from. The lead broker's address (burst brokers dial it) and
 * running pod, its Flux queue, and each burst MiniCluster recorded in status as its target has it now.
 * Reads only; nothing here writes.
 */
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import type { MiniClusterStatus } from '../../api/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import { LABEL_JOB_COMPLETION_INDEX } from '../../api/index.ts';
import { FluxQueueReadError } from '../../burst/flux-queue-error.ts';
import type { BurstCluster } from '../../burst/planner.ts';
import type { QueueSnapshot } from '../../burst/queue.ts';
import type { BurstJobRecord } from './burst-jobs.ts';
import {
  UNANSWERED_MS,
  burstPollMs,
  resolveTarget,
  waiting,
  type BurstEnvironment,
  type BurstOutcome,
  type BurstRecord,
} from './burst-step.ts';
import { readMiniClusterStatus } from './minicluster-client.ts';
import { leadBrokerAddress } from './status.ts';

export interface BurstObservation {
  readonly now: Date;
  readonly pollMs: number;
  /** Where burst brokers reach the lead broker. */
  readonly leadBroker: { readonly address: string; readonly port: number };
  readonly queue: QueueSnapshot;
  /** The recorded bursts still there (one deleted by someone else is forgotten), states refreshed. */
  readonly bursts: BurstRecord[];
  /** The same bursts as the planner takes them. */
  readonly clusters: BurstCluster[];
  /** Bursts with no status this long after their creation: no operator renders them. */
  readonly unanswered: BurstRecord[];
  /** status.burstJobs of the pass before. */
  readonly previousJobs: BurstJobRecord[];
}

/** The observation, or the outcome of a step that must wait (no lead broker yet, queue unreadable). */
export type Observed = { readonly observed: BurstObservation } | { readonly outcome: BurstOutcome };

export async function observeBursts(
  miniCluster: DefaultedMiniCluster,
  previous: MiniClusterStatus | undefined,
  pods: readonly V1Pod[],
  leadBrokerService: V1Service | undefined,
  environment: BurstEnvironment,
): Promise<Observed> {
  const now = environment.now();
  const recorded: BurstRecord[] = [...(previous?.bursts ?? [])];
  const previousJobs = [...(previous?.burstJobs ?? [])];
  const pollMs = burstPollMs(miniCluster);
  const wait = (reason: string, message: string): Observed => ({
    outcome: waiting(reason, message, recorded, previousJobs, pollMs),
  });

  const exposure = leadBrokerService ? leadBrokerAddress(leadBrokerService, pods) : undefined;
  if (!exposure?.address || !exposure.port) {
    return wait('LeadBrokerAddressUnknown', 'waiting for the lead broker Service to get an address');
  }
  const leadPod = pods.find(
    (pod) =>
      pod.metadata?.labels?.[LABEL_JOB_COMPLETION_INDEX] === '0' &&
      pod.status?.phase === 'Running' &&
      !pod.metadata.deletionTimestamp,
  );
  if (!leadPod) return wait('LeadBrokerNotRunning', 'waiting for the lead broker pod to run');

  let queue: QueueSnapshot;
  try {
    queue = await environment.queueReader(miniCluster, leadPod).snapshot();
  } catch (error) {
    if (error instanceof FluxQueueReadError) {
      return wait(error.reason, `reading the Flux queue: ${error.message}`);
    }
    throw error;
  }

  // What exists: a burst MiniCluster deleted by someone else is forgotten (the plan may make it again).
  const clusters: BurstCluster[] = [];
  const bursts: BurstRecord[] = [];
  const unanswered: BurstRecord[] = [];
  for (const burst of recorded) {
    const target = resolveTarget(environment, miniCluster, burst.target);
    let state = burst.state;
    if (target) {
      const remote = await readMiniClusterStatus(target.clients, target.namespace, burst.name);
      if (remote === undefined) continue;
      // Ready once all its brokers are (again, after growing); Pending while it has no status yet.
      if (remote.observedGeneration !== undefined)
        state = remote.summary === 'Ready' && (remote.readyPods ?? 0) >= burst.size ? 'Ready' : 'Pending';
      else if (now.getTime() - Date.parse(burst.createdAt) >= UNANSWERED_MS) unanswered.push(burst);
    }
    bursts.push({ ...burst, state });
    clusters.push({
      slot: burst.slot,
      target: burst.target,
      size: burst.size,
      state,
      createdAt: new Date(burst.createdAt),
      ...(burst.idleSince ? { idleSince: new Date(burst.idleSince) } : {}),
    });
  }
  return {
    observed: {
      now,
      pollMs,
      leadBroker: { address: exposure.address, port: exposure.port },
      queue,
      bursts,
      clusters,
      unanswered,
      previousJobs,
    },
  };
}
