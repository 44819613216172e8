/**
 * The bursting step of a reconcile pass, for a MiniCluster that declares burst slots: read its Flux
 * queue, plan (src/burst/planner.ts), and create or remove burst MiniClusters on burst targets. It
 * returns what status should say; the reconciler writes it with the rest of the status.
 */
import type { V1Pod, V1Secret, V1Service } from '@kubernetes/client-node';
import {
  CONDITION_BURSTING,
  MAX_BURST_RECORD_JOBS,
  PLURAL,
  type DefaultedMiniCluster,
  type MiniClusterStatus,
} from '../../api/index.ts';
import { burstSecrets, externalMiniCluster } from '../../burst/external-minicluster.ts';
import { FluxQueueReadError } from '../../burst/flux-queue-error.ts';
import { planBursts, type BurstCluster } from '../../burst/planner.ts';
import { policyOfSpec } from '../../burst/policy.ts';
import type { FluxQueueReader } from '../../burst/queue.ts';
import { FIELD_MANAGER } from '../../deploy/constants.ts';
import { miniClusterNames } from '../../render/index.ts';
import { describeApiError, isNotFound } from '../../kube/api-errors.ts';
import { burstingCondition, cannotFitEvents, unservedJobs, type BurstJobRecord } from './burst-jobs.ts';
import { serverSideApply } from '../../kube/apply.ts';
import type { ApiClients } from '../../kube/api-clients.ts';
import { readMiniClusterStatus } from './minicluster-client.ts';
import { leadBrokerAddress, type DesiredCondition, type TransitionEvent } from './status.ts';
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
}

export interface BurstEnvironment {
  readonly localClients: ApiClients;
  /** A connected burst target named in the policy, or undefined while it is not (or does not exist). */
  target(miniClusterNamespace: string, name: string): ConnectedTarget | undefined;
  /** How to read the queue of the lead broker running in `leadPod`. */
  queueReader(miniCluster: DefaultedMiniCluster, leadPod: V1Pod): FluxQueueReader;
  readSecret(name: string, namespace: string): Promise<V1Secret | undefined>;
  countWrite(verb: 'apply' | 'delete', kind: string): void;
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

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function waiting(
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
  const namespace = miniCluster.metadata.namespace ?? 'default';
  if (name === IN_CLUSTER_TARGET) return { clients: environment.localClients, namespace };
  return environment.target(namespace, name);
}

/** Removes a burst MiniCluster (its copied Secrets stay for the others on that target; see removeAll). */
async function deleteRemote(
  environment: BurstEnvironment,
  target: ConnectedTarget,
  name: string,
): Promise<void> {
  environment.countWrite('delete', 'MiniCluster');
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
        environment.countWrite('delete', 'Secret');
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

export async function burstStep(
  miniCluster: DefaultedMiniCluster,
  previous: MiniClusterStatus | undefined,
  pods: readonly V1Pod[],
  leadBrokerService: V1Service | undefined,
  environment: BurstEnvironment,
): Promise<BurstOutcome> {
  const now = environment.now();
  const namespace = miniCluster.metadata.namespace ?? 'default';
  let bursts: BurstRecord[] = [...(previous?.bursts ?? [])];
  const previousJobs = [...(previous?.burstJobs ?? [])];
  const pollMs = burstPollMs(miniCluster);
  const exposure = leadBrokerService ? leadBrokerAddress(leadBrokerService, pods) : undefined;
  if (!exposure?.address || !exposure.port) {
    return waiting(
      'LeadBrokerAddressUnknown',
      'waiting for the lead broker Service to get an address',
      bursts,
      previousJobs,
      pollMs,
    );
  }
  const leadPod = pods.find(
    (pod) =>
      pod.metadata?.labels?.['batch.kubernetes.io/job-completion-index'] === '0' &&
      pod.status?.phase === 'Running' &&
      !pod.metadata.deletionTimestamp,
  );
  if (!leadPod)
    return waiting(
      'LeadBrokerNotRunning',
      'waiting for the lead broker pod to run',
      bursts,
      previousJobs,
      pollMs,
    );

  let queue;
  try {
    queue = await environment.queueReader(miniCluster, leadPod).snapshot();
  } catch (error) {
    if (error instanceof FluxQueueReadError)
      return waiting(error.reason, `reading the Flux queue: ${error.message}`, bursts, previousJobs, pollMs);
    throw error;
  }

  // What exists: a burst MiniCluster deleted by someone else is forgotten (the plan may make it again).
  const clusters: BurstCluster[] = [];
  const kept: BurstRecord[] = [];
  const unanswered: BurstRecord[] = [];
  for (const burst of bursts) {
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
    kept.push({ ...burst, state });
    clusters.push({
      slot: burst.slot,
      target: burst.target,
      size: burst.size,
      state,
      createdAt: new Date(burst.createdAt),
      ...(burst.lastBusyAt ? { lastBusyAt: new Date(burst.lastBusyAt) } : {}),
    });
  }
  bursts = kept;

  const slots = (miniCluster.spec.flux.bursting?.clusters ?? []).map((slot) => ({
    name: slot.name,
    size: slot.size,
  }));
  const policy = policyOfSpec(miniCluster.spec.flux.bursting?.policy);
  const plan = planBursts({ queue, localSize: miniCluster.spec.size, slots, clusters, policy, now });

  const jobs = unservedJobs(plan);
  const events: TransitionEvent[] = cannotFitEvents(previous?.burstJobs, jobs);
  const names = miniClusterNames(miniCluster);
  for (const action of plan.actions) {
    if (action.kind === 'keep') {
      if (action.busy) {
        bursts = bursts.map((b) =>
          b.slot === action.slot && busyMarkStale(b, policy, now) ? { ...b, lastBusyAt: iso(now) } : b,
        );
      }
      continue;
    }
    const target = resolveTarget(environment, miniCluster, action.target);
    if (!target) {
      return {
        ...waiting(
          'TargetUnavailable',
          `burst target ${action.target} is not connected; see its Connected condition`,
          bursts,
          jobs,
          pollMs,
        ),
        events,
      };
    }
    if (action.kind === 'delete') {
      const record = bursts.find((b) => b.slot === action.slot && b.target === action.target);
      if (record) await deleteRemote(environment, target, record.name);
      bursts = bursts.filter((b) => b !== record);
      events.push({ type: 'Normal', reason: 'BurstRemoved', note: action.message });
      continue;
    }
    const external = externalMiniCluster({
      local: miniCluster,
      slot: action.slot,
      size: action.size,
      leadBroker: { address: exposure.address, port: exposure.port },
      namespace: target.namespace,
      sameCluster: action.target === IN_CLUSTER_TARGET,
      ...(environment.clusterId() ? { originCluster: environment.clusterId() } : {}),
    });
    // A scale applies the same MiniCluster, larger. One made from another config (the lead's address
    // changed since) is left as it is: its name says so, and growing it would make a second one.
    const record =
      action.kind === 'scale'
        ? bursts.find((b) => b.slot === action.slot && b.target === action.target)
        : undefined;
    if (action.kind === 'scale' && record?.name !== external.name) continue;
    try {
      if (action.kind === 'create' && action.target !== IN_CLUSTER_TARGET) {
        const curve = await environment.readSecret(names.curveCertSecret, namespace);
        const munge = await environment.readSecret(names.mungeKeySecret, namespace);
        const curveData = curve?.data?.['curve.cert'];
        const mungeData = munge?.data?.['munge.key'];
        if (!curveData || !mungeData) {
          return {
            ...waiting(
              'KeysMissing',
              "the MiniCluster's key Secrets are not there yet",
              bursts,
              jobs,
              pollMs,
            ),
            events,
          };
        }
        for (const secret of burstSecrets(external, miniCluster, {
          curveCert: curveData,
          mungeKey: mungeData,
        })) {
          environment.countWrite('apply', 'Secret');
          await serverSideApply(target.clients.objects, secret, FIELD_MANAGER);
        }
      }
      environment.countWrite('apply', 'MiniCluster');
      await serverSideApply(target.clients.objects, external.miniCluster as never, FIELD_MANAGER);
    } catch (error) {
      const doing = record ? `growing ${external.name} to ${action.size}` : `creating ${external.name}`;
      return {
        ...waiting(
          'BurstFailed',
          `${doing} on ${action.target}: ${describeApiError(error)}`,
          bursts,
          jobs,
          pollMs,
        ),
        events,
      };
    }
    if (record) {
      bursts = bursts.map((b) =>
        b === record
          ? {
              ...b,
              size: action.size,
              state: 'Pending',
              jobs: [...new Set([...(b.jobs ?? []), ...action.jobs])].slice(0, MAX_BURST_RECORD_JOBS),
            }
          : b,
      );
      events.push({ type: 'Normal', reason: 'BurstScaled', note: action.message });
      continue;
    }
    bursts.push({
      slot: action.slot,
      target: action.target,
      name: external.name,
      namespace: target.namespace,
      size: action.size,
      state: 'Pending',
      createdAt: iso(now),
      jobs: action.jobs.slice(0, MAX_BURST_RECORD_JOBS),
    });
    events.push({ type: 'Normal', reason: 'BurstCreated', note: action.message });
  }

  return {
    bursts,
    jobs,
    condition: burstingCondition(bursts, jobs, unanswered),
    events,
    requeueAfterMs: pollMs,
  };
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
