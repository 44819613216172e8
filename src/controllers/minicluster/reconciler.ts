/**
 * The MiniCluster reconcile, as lists of named steps (Slinky's `[]Step{{Name, SyncFn}}`) run by
 * src/runtime/steps.ts: first the steps of a pass over a live MiniCluster, then those of one being
 * deleted, then the Reconciler that picks the list and keeps what the steps remember between passes.
 * Each step is in the file named for what it does (validate-steps.ts, secret-steps.ts, ...).
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { ReconcileLog } from '../../observability/logger.ts';
import { splitObjectKey, type ObjectKey } from '../../runtime/object-key.ts';
import { runSteps, type Step } from '../../runtime/steps.ts';
import { applyChanged, pruneStale, reclaimReleasedVolumes, render } from './apply-steps.ts';
import { releaseBurstFinalizer, removeBursts } from './deletion-steps.ts';
import { burst, scale } from './elastic-steps.ts';
import type { Pass, ReconcilerMemory } from './pass.ts';
import { queue } from './queue-step.ts';
import type { ReconcilerDeps } from './reconciler-deps.ts';
import { RenderMemo } from './render-memo.ts';
import type { ScaleMemory } from './scale-step.ts';
import { readOrMakeKeys, requireUserSecrets } from './secret-steps.ts';
import { cleanup, updateStatus } from './status-steps.ts';
import { checkHostStorage, validate } from './validate-steps.ts';

/**
 * The steps of a pass, in order. A step that stops the pass (an invalid spec, a missing Secret, a
 * refused apply) skips the rest but status and cleanup, which run always: status says why.
 */
const PASS_STEPS: readonly Step<Pass>[] = [
  { name: 'validate', run: validate },
  { name: 'host-storage', run: checkHostStorage },
  { name: 'user-secrets', run: requireUserSecrets },
  { name: 'keys', run: readOrMakeKeys },
  { name: 'scale', run: scale },
  { name: 'queue', run: queue },
  { name: 'render', run: render },
  { name: 'prune', run: pruneStale },
  { name: 'apply', run: applyChanged },
  { name: 'volumes', run: reclaimReleasedVolumes },
  { name: 'burst', run: burst },
  { name: 'status', always: true, run: (pass, stopped) => updateStatus(pass, stopped?.problem) },
  { name: 'cleanup', always: true, run: cleanup },
];

/** The steps of a MiniCluster being deleted (its deletionTimestamp set), in order. */
const DELETION_STEPS: readonly Step<Pass>[] = [
  { name: 'remove-bursts', run: removeBursts },
  { name: 'release-finalizer', run: releaseBurstFinalizer },
];

export interface ReconcileResult {
  /** Look again after this long even without a change (waiting on something not watched). */
  readonly requeueAfterMs?: number;
  /** Objects written in this pass. */
  readonly applied: readonly string[];
}

export class Reconciler {
  private readonly deps: ReconcilerDeps;
  private readonly memory: ReconcilerMemory = {
    statusWrittenAt: new Map<string, number>(),
    starting: new Set<string>(),
    memo: new RenderMemo(),
    appeared: new Map<string, Map<string, V1Secret>>(),
    scaleMemory: new Map<string, ScaleMemory>(),
  };

  constructor(deps: ReconcilerDeps) {
    this.deps = deps;
  }

  /** One pass; `log` carries the MiniCluster's namespace, name and this pass's reconcile id. */
  async reconcile(objectKey: ObjectKey, log: ReconcileLog): Promise<ReconcileResult> {
    const { namespace, name } = splitObjectKey(objectKey);
    const live = this.deps.cache.miniClusters.get(name, namespace);
    if (!live) {
      this.forget(objectKey);
      this.memory.statusWrittenAt.delete(objectKey);
      return { applied: [] };
    }
    const deleting = Boolean(live.metadata.deletionTimestamp);
    if (deleting) this.forget(objectKey);
    const pass: Pass = {
      deps: this.deps,
      memory: this.memory,
      objectKey,
      namespace,
      name,
      live,
      log,
      fresh: new Set(),
      objects: [],
      applied: [],
    };
    const { requeueAfterMs } = await runSteps(deleting ? DELETION_STEPS : PASS_STEPS, pass, {
      log,
      ...(this.deps.observeStep ? { observe: this.deps.observeStep } : {}),
    });
    const applied = pass.applied;
    return requeueAfterMs === undefined ? { applied } : { applied, requeueAfterMs };
  }

  /** What the steps remember of a MiniCluster that is gone or going, but when its status was written. */
  private forget(objectKey: ObjectKey): void {
    if (this.memory.scaleMemory.delete(objectKey)) {
      const { namespace, name } = splitObjectKey(objectKey);
      this.deps.observeFluxQueue?.(namespace, name, undefined);
    }
    this.memory.starting.delete(objectKey);
    this.memory.memo.forget(objectKey);
    this.memory.appeared.delete(objectKey);
  }
}
