/**
 * The steps of a MiniCluster being deleted. Its children go with it through their ownerReferences;
 * burst clusters on other clusters have none, so they are removed here (remove-bursts), before the
 * burst finalizer is released and the deletion can finish (release-finalizer). A MiniCluster that
 * never burst holds no such finalizer, and neither step does anything for it.
 */
import { CONTINUE, restart, type StepResult } from '../../runtime/steps.ts';
import { BURST_FINALIZER, removeAllBursts } from './burst-step.ts';
import { writeFinalizers, type Pass } from './pass.ts';
import { validateLive } from './validate-steps.ts';
import type { LiveMiniCluster } from './watched-kinds.ts';

/** How soon to try again to reach the burst targets a deletion could not reach. */
const UNREACHABLE_RETRY_MS = 10_000;

function holdsBurstFinalizer(live: LiveMiniCluster): boolean {
  return (live.metadata.finalizers ?? []).includes(BURST_FINALIZER);
}

/** Deletes every burst MiniCluster (and copied Secret) of this one; the pass waits for unreachable targets. */
export async function removeBursts(pass: Pass): Promise<StepResult> {
  const { live } = pass;
  if (!holdsBurstFinalizer(live)) return CONTINUE;
  const environment = pass.deps.burst;
  const validated = validateLive(
    { ...live, metadata: { ...live.metadata, deletionTimestamp: undefined } },
    pass.deps.fluxViewImage,
  );
  if (!environment || !validated.ok) return CONTINUE;
  const unreachable = await removeAllBursts(environment, validated.value, live.status?.bursts ?? []);
  if (unreachable.length === 0) return CONTINUE;
  pass.log.warn({ targets: unreachable }, 'cannot reach burst targets to remove burst clusters; retrying');
  return restart(UNREACHABLE_RETRY_MS);
}

/**
 * Lets the deletion finish. Without a burst environment (or a valid spec) nothing could be removed:
 * the escape hatch is to remove the finalizer by hand, which this also does rather than block
 * deletion forever.
 */
export async function releaseBurstFinalizer(pass: Pass): Promise<StepResult> {
  const { live } = pass;
  if (!holdsBurstFinalizer(live)) return CONTINUE;
  await writeFinalizers(
    pass,
    (live.metadata.finalizers ?? []).filter((finalizer) => finalizer !== BURST_FINALIZER),
  );
  pass.log.info({}, 'removed burst clusters; deletion can finish');
  return CONTINUE;
}
