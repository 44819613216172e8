/**
 * The bursting step of a reconcile pass, for a MiniCluster that declares burst slots, in three parts:
 * observe (burst-observe.ts: the lead broker, its Flux queue, the burst MiniClusters on the targets),
 * plan (burst-plan.ts, pure, over src/burst/planner.ts) and act (burst-act.ts: create, grow or
 * delete burst MiniClusters). This file holds what the three share, and the removals a MiniCluster's
 * deletion or an emptied spec.flux.bursting.clusters asks for. The step returns what status should
 * say; the reconciler writes it with the rest of the status.
 */
import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import { CONDITION_BURSTING, PLURAL, namespaceOf, type MiniClusterStatus } from '../../api/index.ts';
import type { FluxQueueReader } from '../../burst/queue.ts';
import { miniClusterNames } from '../../render/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import { isNotFound } from '../../kube/api-errors.ts';
import type { BurstJobRecord } from './burst-jobs.ts';
import type { ApiClients } from '../../kube/api-clients.ts';
import type { DesiredCondition, TransitionEvent } from './status.ts';
import { deleteCustomObject } from '../../kube/custom-objects.ts';

/** How often a bursting MiniCluster's queue is read when its policy does not say (pollSeconds). */
export const BURST_POLL_MS = 10_000;

/** The queue poll interval of a MiniCluster: spec.flux.bursting.policy.pollSeconds. */
export function burstPollMs(miniCluster: DefaultedMiniCluster): number {
  const seconds = miniCluster.spec.flux.bursting?.policy?.pollSeconds;
  return seconds === undefined ? BURST_POLL_MS : seconds * 1000;
}
/** The target every MiniCluster may use without a BurstTarget: its own cluster and namespace. */
export const IN_CLUSTER_TARGET = 'in-cluster';
export const BURST_FINALIZER = 'flux-framework.org/burst-cleanup';
/** A burst MiniCluster without any status this long after its creation has no operator rendering it. */
export const UNANSWERED_MS = 60_000;

export type BurstRecord = NonNullable<MiniClusterStatus['bursts']>[number];

/** Where a burst target puts burst MiniClusters, once connected. */
export interface ConnectedTarget {
  readonly clients: ApiClients;
  readonly namespace: string;
  /** The target's Kueue queue (BurstTarget spec.queueName): the burst MiniClusters wait there. */
  readonly queueName?: string;
}

export interface BurstEnvironment {
  readonly localClients: ApiClients;
  /** A connected burst target named in the policy, or undefined while it is not (or does not exist). */
  target(miniClusterNamespace: string, name: string): ConnectedTarget | undefined;
  /** How to read the queue of the lead broker running in `leadPod`. */
  queueReader(miniCluster: DefaultedMiniCluster, leadPod: V1Pod): FluxQueueReader;
  readSecret(name: string, namespace: string): Promise<V1Secret | undefined>;
  now(): Date;
  /** This cluster's identity (kube-system's uid), once known. */
  clusterId(): string | undefined;
}

export interface BurstOutcome {
  readonly bursts: BurstRecord[];
  /** Burstable jobs no burst cluster serves (status.burstJobs); the previous list while the queue is unread. */
  readonly jobs: BurstJobRecord[];
  readonly condition: DesiredCondition;
  readonly events: TransitionEvent[];
  readonly requeueAfterMs: number;
}

export function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An outcome that changes nothing: the Bursting condition says what the step waits for. */
export function waiting(
  reason: string,
  message: string,
  bursts: BurstRecord[],
  jobs: BurstJobRecord[],
  requeueAfterMs: number,
): BurstOutcome {
  return {
    bursts,
    jobs,
    condition: { type: CONDITION_BURSTING, status: 'False', reason, message },
    events: [],
    requeueAfterMs,
  };
}

export function resolveTarget(
  environment: BurstEnvironment,
  miniCluster: DefaultedMiniCluster,
  name: string,
): ConnectedTarget | undefined {
  const namespace = namespaceOf(miniCluster);
  if (name === IN_CLUSTER_TARGET) return { clients: environment.localClients, namespace };
  return environment.target(namespace, name);
}

/** Removes a burst MiniCluster (its copied Secrets stay for the others on that target; see removeAll). */
export async function deleteRemote(
  environment: BurstEnvironment,
  target: ConnectedTarget,
  name: string,
): Promise<void> {
  await deleteCustomObject(target.clients.custom, PLURAL, target.namespace, name);
}

/** Deletes every burst MiniCluster and copied Secret of a MiniCluster (on its deletion). */
export async function removeAllBursts(
  environment: BurstEnvironment,
  miniCluster: DefaultedMiniCluster,
  bursts: readonly BurstRecord[],
): Promise<string[]> {
  const unreachable: string[] = [];
  const names = miniClusterNames(miniCluster);
  for (const burst of bursts) {
    const target = resolveTarget(environment, miniCluster, burst.target);
    if (!target) {
      unreachable.push(burst.target);
      continue;
    }
    await deleteRemote(environment, target, burst.name);
    if (burst.target === IN_CLUSTER_TARGET) continue; // the Secrets there are the MiniCluster's own
    for (const secret of [names.curveCertSecret, names.mungeKeySecret]) {
      try {
        await target.clients.core.deleteNamespacedSecret({ name: secret, namespace: target.namespace });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }
  return unreachable;
}

/**
 * The bursts of a MiniCluster that no longer declares burst slots (spec.flux.bursting.clusters
 * emptied): their hosts are gone from its config, so every one is removed, with its copied keys.
 */
export async function removeUndeclaredBursts(
  environment: BurstEnvironment,
  miniCluster: DefaultedMiniCluster,
  bursts: readonly BurstRecord[],
): Promise<BurstOutcome> {
  const unreachable = await removeAllBursts(environment, miniCluster, bursts);
  const left = bursts.filter((burst) => unreachable.includes(burst.target));
  const events: TransitionEvent[] = bursts
    .filter((burst) => !left.includes(burst))
    .map((burst) => ({
      type: 'Normal',
      reason: 'BurstRemoved',
      note: `slot ${burst.slot} on ${burst.target}: spec.flux.bursting.clusters no longer declares burst slots`,
    }));
  const condition: DesiredCondition =
    left.length > 0
      ? {
          type: CONDITION_BURSTING,
          status: 'True',
          reason: 'TargetUnavailable',
          message: `burst slots are no longer declared; burst targets ${[...new Set(left.map((b) => b.target))].join(', ')} cannot be reached to remove ${left.map((b) => b.name).join(', ')}; retrying`,
        }
      : {
          type: CONDITION_BURSTING,
          status: 'False',
          reason: 'NotDeclared',
          message: 'no burst slots are declared; every burst cluster was removed',
        };
  return { bursts: left, jobs: [], condition, events, requeueAfterMs: BURST_POLL_MS };
}

/**
 * Whether lastBusyAt is old enough to be worth a status write: refreshed at a quarter of the idle
 * time (at most every minute), so a busy burst costs about one write a minute, not one per poll,
 * and is removed at most that much later than idleSeconds after its work ended.
 */
export function busyMarkStale(burst: BurstRecord, policy: { idleSeconds: number }, now: Date): boolean {
  if (!burst.lastBusyAt) return true;
  const refreshMs = Math.max(1000, Math.min(60_000, (policy.idleSeconds * 1000) / 4));
  return now.getTime() - new Date(burst.lastBusyAt).getTime() >= refreshMs;
}
