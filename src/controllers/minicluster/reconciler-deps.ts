/**
 * What the MiniCluster reconciler is given: the caches it reads, the API calls it makes, and the
 * settings and observers of the operator around it (setup.ts builds them).
 */
import type { V1Job, V1Pod, V1Secret } from '@kubernetes/client-node';
import type { KubeObject } from '../../render/index.ts';
import type { Applier } from '../../kube/apply.ts';
import type { AppsApi, CoreApi, CustomObjectsApi } from '../../kube/api-clients.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { BurstEnvironment } from './burst-step.ts';
import type { FluxQueueObserver } from './scale-step.ts';
import type { LiveMiniCluster } from './watched-kinds.ts';

/** One object of a cache by name; cluster-wide objects (PersistentVolumes) with namespace ''. */
export interface CacheReader<T> {
  get(name: string, namespace: string): T | undefined;
}

/** What the reconciler reads of the caches: the manager's informers (setup.ts), or a test's. */
export interface ReconcilerCache {
  readonly miniClusters: CacheReader<LiveMiniCluster>;
  readonly jobs: CacheReader<V1Job>;
  readonly secrets: CacheReader<V1Secret>;
  readonly children: ReadonlyMap<string, CacheReader<KubeObject>>;
  podsOf(namespace: string, miniClusterName: string): V1Pod[];
}

/** The API calls the reconciler makes (ApiClients has them all). */
export interface ReconcilerClients {
  readonly objects: Applier;
  readonly core: Pick<
    CoreApi,
    | 'readNamespace'
    | 'readNamespacedSecret'
    | 'createNamespacedSecret'
    | 'deleteNamespacedSecret'
    | 'deleteNamespacedService'
    | 'patchPersistentVolume'
  >;
  readonly apps: Pick<AppsApi, 'deleteNamespacedDeployment'>;
  readonly custom: Pick<
    CustomObjectsApi,
    | 'patchNamespacedCustomObjectStatus'
    | 'patchNamespacedCustomObject'
    | 'deleteNamespacedCustomObject'
    | 'listNamespacedCustomObject'
  >;
}

export interface ReconcilerDeps {
  readonly clients: ReconcilerClients;
  readonly cache: ReconcilerCache;
  readonly recorder: Pick<EventRecorder, 'record'>;
  readonly now: () => Date;
  /** Set when the operator bursts: how to reach targets and read queues. */
  readonly burst?: BurstEnvironment;
  /** Each step's duration in seconds, by step name (flux_operator_reconcile_step_duration_seconds). */
  readonly observeStep?: (step: string, seconds: number) => void;
  /** The Flux view image of MiniClusters that name none (`flux.container.image`). Unset: the API's default. */
  readonly fluxViewImage?: string;
  /** Namespaces allowed host storage besides those labelled (the Helm value hostStorageNamespaces). */
  readonly hostStorageNamespaces?: readonly string[];
  /** Each Flux queue the scale step reads, in counts (the flux_operator_flux_* metrics). */
  readonly observeFluxQueue?: FluxQueueObserver;
}
