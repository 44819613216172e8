/**
 * Bursting, act: carries out a plan (burst-plan.ts) on the burst targets, creating, growing and
 * deleting burst MiniClusters (and copying the key Secrets a create on another cluster needs), and
 * records each in the bursts status will show. The first action that cannot be done ends the step,
 * with the Bursting condition saying why; what was done before it is recorded.
 */
import { MAX_BURST_RECORD_JOBS, SECRET_DATA_KEYS, namespaceOf } from '../../api/index.ts';
import { burstLocal, burstSecrets, externalMiniCluster } from '../../burst/external-minicluster.ts';
import type { KeepAction } from '../../burst/planner.ts';
import { FIELD_MANAGER } from '../../deploy/constants.ts';
import { describeApiError } from '../../kube/api-errors.ts';
import { serverSideApply } from '../../kube/apply.ts';
import { miniClusterNames } from '../../render/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import { burstingCondition } from './burst-jobs.ts';
import type { BurstObservation } from './burst-observe.ts';
import type { PlannedBursts } from './burst-plan.ts';
import {
  IN_CLUSTER_TARGET,
  busyMarkStale,
  deleteRemote,
  iso,
  resolveTarget,
  waiting,
  type BurstEnvironment,
  type BurstOutcome,
  type BurstRecord,
} from './burst-step.ts';
import type { TransitionEvent } from './status.ts';

/**
 * A kept burst as status records it: busy, its lastBusyAt refreshed when stale and its idle time
 * ended; idle, when its idle time began (written once, on the first plan that found it idle).
 */
export function keptRecord(
  burst: BurstRecord,
  action: KeepAction,
  policy: { idleSeconds: number },
  now: Date,
): BurstRecord {
  if (action.busy) {
    const { idleSince: _ended, ...rest } = burst;
    return busyMarkStale(burst, policy, now) ? { ...rest, lastBusyAt: iso(now) } : rest;
  }
  const since = action.idleSince ?? now;
  return burst.idleSince && Date.parse(burst.idleSince) === since.getTime()
    ? burst
    : { ...burst, idleSince: iso(since) };
}

export async function actOnPlan(
  environment: BurstEnvironment,
  miniCluster: DefaultedMiniCluster,
  observation: BurstObservation,
  planned: PlannedBursts,
): Promise<BurstOutcome> {
  const { now, pollMs, leadBroker } = observation;
  const { policy, jobs } = planned;
  const namespace = namespaceOf(miniCluster);
  const names = miniClusterNames(miniCluster);
  // The local MiniCluster as the burst builder takes it: converted once for every action.
  const local = burstLocal(miniCluster);
  let bursts: BurstRecord[] = [...observation.bursts];
  const events: TransitionEvent[] = [...planned.events];
  const stopWith = (reason: string, message: string): BurstOutcome => ({
    ...waiting(reason, message, bursts, jobs, pollMs),
    events,
  });

  for (const action of planned.plan.actions) {
    if (action.kind === 'keep') {
      bursts = bursts.map((b) => (b.slot === action.slot ? keptRecord(b, action, policy, now) : b));
      continue;
    }
    const target = resolveTarget(environment, miniCluster, action.target);
    if (!target) {
      return stopWith(
        'TargetUnavailable',
        `burst target ${action.target} is not connected; see its Connected condition`,
      );
    }
    if (action.kind === 'delete') {
      const record = bursts.find((b) => b.slot === action.slot && b.target === action.target);
      if (record) await deleteRemote(environment, target, record.name);
      bursts = bursts.filter((b) => b !== record);
      events.push({ type: 'Normal', reason: 'BurstRemoved', note: action.message });
      continue;
    }
    const external = externalMiniCluster({
      ...local,
      slot: action.slot,
      size: action.size,
      leadBroker,
      namespace: target.namespace,
      ...(target.queueName === undefined ? {} : { queueName: target.queueName }),
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
        const curveData = curve?.data?.[SECRET_DATA_KEYS.curveCert];
        const mungeData = munge?.data?.[SECRET_DATA_KEYS.mungeKey];
        if (!curveData || !mungeData) {
          return stopWith('KeysMissing', "the MiniCluster's key Secrets are not there yet");
        }
        for (const secret of burstSecrets(external, local.local, {
          curveCert: curveData,
          mungeKey: mungeData,
        })) {
          await serverSideApply(target.clients.objects, secret, FIELD_MANAGER);
        }
      }
      await serverSideApply(target.clients.objects, external.miniCluster as never, FIELD_MANAGER);
    } catch (error) {
      const doing = record ? `growing ${external.name} to ${action.size}` : `creating ${external.name}`;
      return stopWith('BurstFailed', `${doing} on ${action.target}: ${describeApiError(error)}`);
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
    condition: burstingCondition(bursts, jobs, observation.unanswered),
    events,
    requeueAfterMs: pollMs,
  };
}
