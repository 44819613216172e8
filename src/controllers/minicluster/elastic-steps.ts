/**
 * The steps that reach past the Job the spec renders: scale (autoscaling and scale-in, decided by
 * scale-step.ts, a new size written to spec.size) and burst (burst MiniClusters on other clusters,
 * burst-step.ts and its parts, held by a finalizer while there are any).
 */
import type { V1Service } from '@kubernetes/client-node';
import { CONDITION_BURSTING, GROUP, LABEL_MINICLUSTER, PLURAL } from '../../api/index.ts';
import { exposesLeadBroker } from '../../render/index.ts';
import { isConflict } from '../../kube/api-errors.ts';
import { CONTINUE, continueAfter, type StepResult } from '../../runtime/steps.ts';
import { actOnPlan } from './burst-act.ts';
import { observeBursts } from './burst-observe.ts';
import { planBurstActions } from './burst-plan.ts';
import { BURST_FINALIZER, removeUndeclaredBursts } from './burst-step.ts';
import { validOf, writeFinalizers, type Pass } from './pass.ts';
import { fluxQueueCounts, scaleStep } from './scale-step.ts';
import { MINICLUSTER_VERSION } from './watched-kinds.ts';

/**
 * Autoscaling and scale-in (scale-step.ts): reads the Flux queue of an autoscaled MiniCluster every
 * pollSeconds, and of any MiniCluster whose Job must shrink (to drain the ranks that go first). A
 * new size the autoscaler decides is written to spec.size, as an HPA would through /scale; the next
 * pass applies it like any other.
 */
export async function scale(pass: Pass): Promise<StepResult> {
  const { miniCluster, names } = validOf(pass);
  const { live, namespace, name, objectKey } = pass;
  const environment = pass.deps.burst;
  if (!environment) return CONTINUE;
  const job = pass.deps.cache.jobs.get(names.job, namespace);
  const outcome = await scaleStep(environment, {
    miniCluster,
    job: job?.metadata?.labels?.[LABEL_MINICLUSTER] === name ? job : undefined,
    pods: pass.deps.cache.podsOf(namespace, name),
    previous: live.status,
    memory: pass.memory.scaleMemory.get(objectKey) ?? { lastBusyMs: new Map() },
    now: pass.deps.now(),
  });
  pass.memory.scaleMemory.set(objectKey, outcome.memory);
  pass.scale = outcome;
  if (outcome.snapshot) pass.deps.observeFluxQueue?.(namespace, name, fluxQueueCounts(outcome.snapshot));
  if (outcome.resize) {
    try {
      // resourceVersion: a size someone else wrote meanwhile wins; the next poll decides again.
      await pass.deps.clients.custom.patchNamespacedCustomObject({
        group: GROUP,
        version: MINICLUSTER_VERSION,
        namespace,
        plural: PLURAL,
        name,
        body: {
          metadata: { resourceVersion: live.metadata.resourceVersion },
          spec: { size: outcome.resize.size },
        },
      });
      pass.log.info(
        { from: miniCluster.spec.size, to: outcome.resize.size, reason: outcome.resize.reason },
        'autoscaled',
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      // The size changed meanwhile: nothing of this decision is reported; the next poll decides again.
      const { status: _status, resize: _resize, ...rest } = outcome;
      const { autoscale: _autoscale, draining: _draining, ...kept } = outcome.memory;
      pass.scale = { ...rest, events: [], memory: kept };
      pass.memory.scaleMemory.set(objectKey, kept);
    }
  }
  return continueAfter(outcome.requeueAfterMs);
}

/**
 * Bursting, for a MiniCluster that declares burst slots: observe, plan, act (burst-step.ts), and a
 * finalizer while it has bursts. One that stopped declaring them has its bursts removed.
 */
export async function burst(pass: Pass): Promise<StepResult> {
  const { miniCluster, names } = validOf(pass);
  const { live, namespace, name } = pass;
  const environment = pass.deps.burst;
  if (!environment) return CONTINUE;
  if (!exposesLeadBroker(miniCluster)) {
    const bursts = live.status?.bursts ?? [];
    if (bursts.length === 0) return CONTINUE;
    pass.burst = await removeUndeclaredBursts(environment, miniCluster, bursts);
    return continueAfter(pass.burst.requeueAfterMs);
  }
  const service = pass.deps.cache.children.get('Service')?.get(names.leadBrokerService, namespace) as
    V1Service | undefined;
  const pods = pass.deps.cache.podsOf(namespace, name);
  // The queue the scale step read this pass serves bursting too: one exec per poll.
  const snapshot = pass.scale?.snapshot;
  const reading = snapshot
    ? { ...environment, queueReader: () => ({ snapshot: () => Promise.resolve(snapshot) }) }
    : environment;
  const observed = await observeBursts(miniCluster, live.status, pods, service, reading);
  if ('outcome' in observed) {
    // Said once, when the step starts waiting for this reason: nothing is planned meanwhile.
    const { reason, message } = observed.outcome.condition;
    const before = live.status?.conditions?.find((c) => c.type === CONDITION_BURSTING)?.reason;
    if (before !== reason) pass.log.info({ reason, detail: message }, 'bursting waits; nothing is planned');
  }
  const outcome =
    'outcome' in observed
      ? observed.outcome
      : await actOnPlan(
          environment,
          miniCluster,
          observed.observed,
          planBurstActions(miniCluster, live.status, observed.observed),
        );
  const finalizers = live.metadata.finalizers ?? [];
  if (outcome.bursts.length > 0 && !finalizers.includes(BURST_FINALIZER)) {
    await writeFinalizers(pass, [...finalizers, BURST_FINALIZER]);
  }
  pass.burst = outcome;
  return continueAfter(outcome.requeueAfterMs);
}
