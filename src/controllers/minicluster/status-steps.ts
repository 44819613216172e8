/**
 * The last steps of every pass, run even when an earlier step stopped it: status (computed from the
 * caches and what the steps found, written once, then the events of its transitions) and cleanup
 * (spec.cleanup deletes a MiniCluster the status just written says finished).
 */
import type { V1Service } from '@kubernetes/client-node';
import {
  GROUP,
  KIND,
  LABEL_MINICLUSTER,
  PLURAL,
  namespaceOf,
  type MiniClusterStatus,
} from '../../api/index.ts';
import { exposesLeadBroker } from '../../render/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import { deleteCustomObject } from '../../kube/custom-objects.ts';
import { mergePatch } from '../../kube/merge-patch.ts';
import { CONTINUE, continueAfter, type BlockingProblem, type StepResult } from '../../runtime/steps.ts';
import type { Pass } from './pass.ts';
import type { ReconcilerDeps } from './reconciler-deps.ts';
import {
  computeStatus,
  progressOnly,
  statusChanged,
  transitionEvents,
  type TransitionEvent,
} from './status.ts';
import { MINICLUSTER_API_VERSION, MINICLUSTER_VERSION, type LiveMiniCluster } from './watched-kinds.ts';

/**
 * Progress-only status changes (pod counts, steps of a start: see progressOnly) of one MiniCluster
 * are written at most this often: pods that start over several seconds make a write or two, not one
 * per step (docs/performance.md: writes per MiniCluster). Ready, problems and outcomes are not held.
 */
export const STATUS_PROGRESS_INTERVAL_MS = 10_000;

/**
 * Progress writes of all MiniClusters together stay under this rate: when many start at once (a
 * fleet of 1,000), each one's progress is written less often than every 10 s, and the API server
 * spends its time starting their pods. Ready, problems and outcomes are never held.
 */
export const STATUS_PROGRESS_WRITES_PER_SECOND = 20;

/** How long progress waits after a MiniCluster's last status write, with `starting` MiniClusters starting. */
export function progressIntervalMs(starting: number): number {
  return Math.max(
    STATUS_PROGRESS_INTERVAL_MS,
    Math.ceil((starting * 1000) / STATUS_PROGRESS_WRITES_PER_SECOND),
  );
}

/**
 * The status, computed from the caches and what the steps found, written once when it changed
 * (progress alone at most every progressIntervalMs), then the events of its transitions.
 */
export async function updateStatus(pass: Pass, problem: BlockingProblem | undefined): Promise<StepResult> {
  const { live, miniCluster, namespace, name, objectKey, burst, scale, queue } = pass;
  const job = pass.deps.cache.jobs.get(pass.names ? pass.names.job : name, namespace);
  const subject: DefaultedMiniCluster =
    miniCluster ??
    // An invalid spec still gets a status; defaults that cannot be computed fall back to the raw spec.
    ({
      ...live,
      spec: { ...live.spec, maxSize: live.spec.maxSize ?? live.spec.size ?? 1, size: live.spec.size ?? 1 },
    } as DefaultedMiniCluster);
  const previous = live.status;
  const leadBrokerService =
    miniCluster && pass.names && exposesLeadBroker(miniCluster)
      ? (pass.deps.cache.children.get('Service')?.get(pass.names.leadBrokerService, namespace) as
          V1Service | undefined)
      : undefined;
  const next = computeStatus({
    ...(leadBrokerService ? { leadBrokerService } : {}),
    ...(burst ? { burst: { bursts: burst.bursts, jobs: burst.jobs, condition: burst.condition } } : {}),
    ...(scale?.status ? { scale: scale.status } : {}),
    ...(queue ? { queue } : {}),
    miniCluster: subject,
    previous,
    job: job?.metadata?.labels?.[LABEL_MINICLUSTER] === name ? job : undefined,
    pods: pass.deps.cache.podsOf(namespace, name),
    ...(problem ? { problem } : {}),
    now: pass.deps.now(),
  });
  if (next.summary === 'Pending' || next.summary === 'Starting') pass.memory.starting.add(objectKey);
  else pass.memory.starting.delete(objectKey);
  if (!statusChanged(previous, next)) return CONTINUE;
  // Progress alone waits out the interval since the last write, then the latest is written.
  const nowMs = pass.deps.now().getTime();
  const sinceLast = nowMs - (pass.memory.statusWrittenAt.get(objectKey) ?? Number.NEGATIVE_INFINITY);
  const interval = progressIntervalMs(pass.memory.starting.size);
  if (progressOnly(previous, next) && sinceLast >= 0 && sinceLast < interval) {
    return continueAfter(interval - sinceLast);
  }
  pass.memory.statusWrittenAt.set(objectKey, nowMs);
  await pass.deps.clients.custom.patchNamespacedCustomObjectStatus({
    group: GROUP,
    version: MINICLUSTER_VERSION,
    namespace,
    plural: PLURAL,
    name,
    body: { status: mergePatch(previous ?? {}, next) },
  });
  pass.written = next;
  await emitTransitions(pass.deps, live, previous, next, [
    ...(scale?.events ?? []),
    ...(burst?.events ?? []),
  ]);
  return CONTINUE;
}

/** Events after the status write succeeded, so they never announce what status does not show. */
async function emitTransitions(
  deps: ReconcilerDeps,
  live: LiveMiniCluster,
  previous: MiniClusterStatus | undefined,
  next: MiniClusterStatus,
  extra: readonly TransitionEvent[],
): Promise<void> {
  const target = {
    apiVersion: MINICLUSTER_API_VERSION,
    kind: KIND,
    name: live.metadata.name,
    namespace: namespaceOf(live),
    ...(live.metadata.uid ? { uid: live.metadata.uid } : {}),
  };
  for (const event of [...transitionEvents(previous, next), ...extra]) {
    await deps.recorder.record(target, { ...event, action: 'Reconcile' });
  }
}

/**
 * spec.cleanup: a MiniCluster is deleted when the status written this pass says it finished (once:
 * passes after that write see no change, and its deletion is under way).
 */
export async function cleanup(pass: Pass): Promise<StepResult> {
  const finished = pass.written?.summary === 'Succeeded' || pass.written?.summary === 'Failed';
  if (!pass.miniCluster?.spec.cleanup || !finished) return CONTINUE;
  await deleteCustomObject(pass.deps.clients.custom, PLURAL, pass.namespace, pass.name);
  pass.log.info({}, 'cleanup: deleted the finished MiniCluster');
  return CONTINUE;
}
