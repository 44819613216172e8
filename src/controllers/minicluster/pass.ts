/**
 * What the steps of one reconcile pass share (each reads what the ones before it found), and what
 * the reconciler keeps for them from one pass to the next.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { PLURAL, type MiniClusterStatus } from '../../api/index.ts';
import type { KubeObject, MiniClusterKeys, MiniClusterNames } from '../../render/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import { patchFinalizers } from '../../kube/custom-objects.ts';
import type { ReconcileLog } from '../../observability/logger.ts';
import type { ObjectKey } from '../../runtime/object-key.ts';
import type { BurstOutcome } from './burst-step.ts';
import type { QueueState } from './queue-status.ts';
import type { ReconcilerDeps } from './reconciler-deps.ts';
import type { RenderMemo } from './render-memo.ts';
import type { ScaleMemory, ScaleOutcome } from './scale-step.ts';
import type { LiveMiniCluster } from './watched-kinds.ts';

/** What the reconciler remembers between passes, by MiniCluster (object key). */
export interface ReconcilerMemory {
  /** When each MiniCluster's status was last written (ms since the epoch, deps.now's clock). */
  readonly statusWrittenAt: Map<string, number>;
  /** MiniClusters whose last computed status is a start in progress (summary Pending or Starting). */
  readonly starting: Set<string>;
  readonly memo: RenderMemo;
  /** Per MiniCluster, Secrets a create found there already (by name), until the cache has them too. */
  readonly appeared: Map<string, Map<string, V1Secret>>;
  /** Per MiniCluster, what the scale step remembers between passes (last read, ranks' last busy times). */
  readonly scaleMemory: Map<string, ScaleMemory>;
}

export interface Pass {
  readonly deps: ReconcilerDeps;
  readonly memory: ReconcilerMemory;
  readonly objectKey: ObjectKey;
  readonly namespace: string;
  readonly name: string;
  readonly live: LiveMiniCluster;
  readonly log: ReconcileLog;
  /** Set by validate. */
  miniCluster?: DefaultedMiniCluster;
  names?: MiniClusterNames;
  /** Set by keys: the keys, and the generated Secrets that hold new ones (created, never applied). */
  keys?: MiniClusterKeys;
  fresh: ReadonlySet<string>;
  /** Set by render. */
  objects: readonly KubeObject[];
  /** Objects written by apply. */
  readonly applied: string[];
  /** Set by scale: the Job's size this pass, the queue as read, status.autoscale. */
  scale?: ScaleOutcome;
  /** Set by queue, for a MiniCluster under Kueue: why it waits, and the size its Job keeps. */
  queue?: QueueState;
  /** Set by burst. */
  burst?: BurstOutcome;
  /** The status written this pass, if one was (cleanup follows it). */
  written?: MiniClusterStatus;
}

/** The MiniCluster and its names, which every step after validate has. */
export function validOf(pass: Pass): { miniCluster: DefaultedMiniCluster; names: MiniClusterNames } {
  const { miniCluster, names } = pass;
  if (!miniCluster || !names) throw new Error('a reconcile step ran before validate');
  return { miniCluster, names };
}

/** Replaces the MiniCluster's finalizers (bursting adds its own, deletion removes it). */
export async function writeFinalizers(pass: Pass, finalizers: string[]): Promise<void> {
  await patchFinalizers(pass.deps.clients.custom, PLURAL, pass.live, finalizers);
}
