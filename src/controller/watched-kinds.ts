import type {
  KubernetesObject,
  V1Deployment,
  V1ConfigMap,
  V1Job,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import { PLURAL, type MiniCluster } from '../api/index.ts';
import type { WatchedKind } from './informers.ts';
import type { KubeClients } from '../kube/clients.ts';
import { customObjectsPath, listCustomObjects } from '../kube/custom-objects.ts';

/** A MiniCluster as the API returns it: the schema's shape plus server-set metadata. */
export type LiveMiniCluster = MiniCluster &
  KubernetesObject & {
    metadata: MiniCluster['metadata'] & {
      uid?: string;
      resourceVersion?: string;
      deletionTimestamp?: Date | string;
      finalizers?: string[];
    };
  };

function corePath(resource: string) {
  return (namespace: string | undefined) =>
    namespace === undefined ? `/api/v1/${resource}` : `/api/v1/namespaces/${namespace}/${resource}`;
}

export function watchedKinds(clients: KubeClients) {
  const { core, batch, apps, custom } = clients;
  const miniClusters: WatchedKind<LiveMiniCluster> = {
    name: 'MiniCluster',
    path: (namespace) => customObjectsPath(PLURAL, namespace),
    list: (namespace, labelSelector) =>
      listCustomObjects<LiveMiniCluster>(custom, PLURAL, namespace, labelSelector),
  };
  const jobs: WatchedKind<V1Job> = {
    name: 'Job',
    path: (namespace) =>
      namespace === undefined ? '/apis/batch/v1/jobs' : `/apis/batch/v1/namespaces/${namespace}/jobs`,
    list: (namespace, labelSelector) =>
      namespace === undefined
        ? batch.listJobForAllNamespaces({ labelSelector })
        : batch.listNamespacedJob({ namespace, labelSelector }),
  };
  const pods: WatchedKind<V1Pod> = {
    name: 'Pod',
    path: corePath('pods'),
    list: (namespace, labelSelector) =>
      namespace === undefined
        ? core.listPodForAllNamespaces({ labelSelector })
        : core.listNamespacedPod({ namespace, labelSelector }),
  };
  const services: WatchedKind<V1Service> = {
    name: 'Service',
    path: corePath('services'),
    list: (namespace, labelSelector) =>
      namespace === undefined
        ? core.listServiceForAllNamespaces({ labelSelector })
        : core.listNamespacedService({ namespace, labelSelector }),
  };
  const configMaps: WatchedKind<V1ConfigMap> = {
    name: 'ConfigMap',
    path: corePath('configmaps'),
    list: (namespace, labelSelector) =>
      namespace === undefined
        ? core.listConfigMapForAllNamespaces({ labelSelector })
        : core.listNamespacedConfigMap({ namespace, labelSelector }),
  };
  const secrets: WatchedKind<V1Secret> = {
    name: 'Secret',
    path: corePath('secrets'),
    list: (namespace, labelSelector) =>
      namespace === undefined
        ? core.listSecretForAllNamespaces({ labelSelector })
        : core.listNamespacedSecret({ namespace, labelSelector }),
  };
  const deployments: WatchedKind<V1Deployment> = {
    name: 'Deployment',
    path: (namespace) =>
      namespace === undefined
        ? '/apis/apps/v1/deployments'
        : `/apis/apps/v1/namespaces/${namespace}/deployments`,
    list: (namespace, labelSelector) =>
      namespace === undefined
        ? apps.listDeploymentForAllNamespaces({ labelSelector })
        : apps.listNamespacedDeployment({ namespace, labelSelector }),
  };
  const persistentVolumeClaims: WatchedKind<V1PersistentVolumeClaim> = {
    name: 'PersistentVolumeClaim',
    path: corePath('persistentvolumeclaims'),
    list: (namespace, labelSelector) =>
      namespace === undefined
        ? core.listPersistentVolumeClaimForAllNamespaces({ labelSelector })
        : core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }),
  };
  // Cluster-wide whatever namespaces the operator watches: the namespace is in a label.
  const persistentVolumes: WatchedKind<V1PersistentVolume> = {
    name: 'PersistentVolume',
    path: () => '/api/v1/persistentvolumes',
    list: (_namespace, labelSelector) => core.listPersistentVolume({ labelSelector }),
  };
  return {
    miniClusters,
    jobs,
    pods,
    services,
    configMaps,
    secrets,
    deployments,
    persistentVolumeClaims,
    persistentVolumes,
  };
}
