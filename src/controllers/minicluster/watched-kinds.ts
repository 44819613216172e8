import type {
  KubernetesObject,
  V1Deployment,
  V1ConfigMap,
  V1ContainerStatus,
  V1Job,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import { API_VERSION, PLURAL, VERSION, type MiniCluster } from '../../api/index.ts';

/**
 * The version the controller watches and writes MiniClusters in: the one the CRD stores, v1alpha2,
 * so that its lists and watches need no conversion (a MiniCluster written as v1alpha1 reaches it
 * through the conversion webhook until it is written again). Whichever it is, the controller reads
 * each MiniCluster through its v1alpha2 form (validate-steps.ts).
 */
export const MINICLUSTER_VERSION = VERSION;
export const MINICLUSTER_API_VERSION = API_VERSION;
import type { WatchedKind } from '../../runtime/informers.ts';
import { collectionPath, type ApiClients } from '../../kube/api-clients.ts';

/**
 * A MiniCluster as the API returns it: in MINICLUSTER_VERSION, the hub (one written as v1alpha1 comes
 * converted by the API server), its schema's shape plus server-set metadata.
 */
export type LiveMiniCluster = MiniCluster &
  KubernetesObject & {
    metadata: MiniCluster['metadata'] & {
      uid?: string;
      resourceVersion?: string;
      deletionTimestamp?: Date | string;
      finalizers?: string[];
    };
  };

/** A kind's collection path under an API prefix, for one namespace or all. */
function pathUnder(prefix: string, resource: string) {
  return (namespace: string | undefined) => collectionPath(prefix, resource, namespace);
}

/**
 * What the cache keeps of a pod: the metadata that routes it (name, namespace, labels, uid,
 * resourceVersion, deletionTimestamp), which init containers are sidecars (restartPolicy Always: the
 * Flux view's), and the status fields the MiniCluster's status reads (phase, conditions, container
 * states and how each last ended, host IP). The rest of the spec and of the status, most of a pod's
 * size, are dropped: at 8,000 pods they were most of the operator's heap (docs/performance.md).
 */
export function podForCache(pod: V1Pod): V1Pod {
  const { metadata, status } = pod;
  const sidecars = (pod.spec?.initContainers ?? []).filter((init) => init.restartPolicy === 'Always');
  const kept: V1Pod = {
    metadata: {
      name: metadata?.name,
      namespace: metadata?.namespace,
      uid: metadata?.uid,
      resourceVersion: metadata?.resourceVersion,
      labels: metadata?.labels,
      ...(metadata?.deletionTimestamp ? { deletionTimestamp: metadata.deletionTimestamp } : {}),
    },
  };
  if (sidecars.length > 0) {
    kept.spec = {
      // Their names only: leadSucceeded counts them.
      containers: (pod.spec?.containers ?? []).map(({ name }) => ({ name })),
      initContainers: sidecars.map(({ name, restartPolicy }) => ({ name, restartPolicy })),
    };
  }
  if (status) {
    kept.status = {
      phase: status.phase,
      ...(status.hostIP ? { hostIP: status.hostIP } : {}),
      ...(status.conditions
        ? {
            conditions: status.conditions.map(({ type, status: value, reason }) => ({
              type,
              status: value,
              ...(reason ? { reason } : {}),
            })),
          }
        : {}),
      ...(status.initContainerStatuses
        ? { initContainerStatuses: status.initContainerStatuses.map(containerForCache) }
        : {}),
      ...(status.containerStatuses
        ? { containerStatuses: status.containerStatuses.map(containerForCache) }
        : {}),
    };
  }
  return kept;
}

function containerForCache({
  name,
  state,
  lastState,
  ready,
  restartCount,
}: V1ContainerStatus): V1ContainerStatus {
  const ended = lastState?.terminated;
  return {
    name,
    state,
    ready,
    restartCount,
    // How a restarted container last ended (a failing sidecar's only record): its status and words.
    ...(ended
      ? {
          lastState: {
            terminated: {
              exitCode: ended.exitCode,
              ...(ended.reason ? { reason: ended.reason } : {}),
              ...(ended.message ? { message: ended.message } : {}),
            },
          },
        }
      : {}),
  } as V1ContainerStatus;
}

export function watchedKinds(clients: ApiClients) {
  const kind = <T extends KubernetesObject>(
    name: string,
    path: (namespace: string | undefined) => string,
    transform?: (object: T) => T,
  ): WatchedKind<T> => ({
    name,
    path,
    list: (namespace, labelSelector) => clients.list<T>(path(namespace), labelSelector),
    ...(transform ? { transform } : {}),
  });
  return {
    miniClusters: kind<LiveMiniCluster>('MiniCluster', pathUnder(`/apis/${MINICLUSTER_API_VERSION}`, PLURAL)),
    jobs: kind<V1Job>('Job', pathUnder('/apis/batch/v1', 'jobs')),
    pods: kind<V1Pod>('Pod', pathUnder('/api/v1', 'pods'), podForCache),
    services: kind<V1Service>('Service', pathUnder('/api/v1', 'services')),
    configMaps: kind<V1ConfigMap>('ConfigMap', pathUnder('/api/v1', 'configmaps')),
    secrets: kind<V1Secret>('Secret', pathUnder('/api/v1', 'secrets')),
    deployments: kind<V1Deployment>('Deployment', pathUnder('/apis/apps/v1', 'deployments')),
    persistentVolumeClaims: kind<V1PersistentVolumeClaim>(
      'PersistentVolumeClaim',
      pathUnder('/api/v1', 'persistentvolumeclaims'),
    ),
    // Cluster-wide whatever namespaces the operator watches: the namespace is in a label.
    persistentVolumes: kind<V1PersistentVolume>('PersistentVolume', () =>
      collectionPath('/api/v1', 'persistentvolumes'),
    ),
  };
}
