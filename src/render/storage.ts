/**
 * The storage of `spec.volumes`: a PersistentVolumeClaim per entry, and a PersistentVolume where the
 * Go operator's v1alpha1 made one (a `hostpath` directory of the node, or a CSI volume of `driver`).
 * Claim and volume are bound to each other by name on both sides, so no other claim can take the
 * volume and the claim takes no other volume (v1alpha1 left that to chance). Another storage class
 * without a driver gets only the claim, which its provisioner fills.
 */
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import {
  COMPONENT_STORAGE,
  HOSTPATH_STORAGE_CLASS,
  LABEL_DELETE_WITH_MINICLUSTER,
  LABEL_MINICLUSTER_NAMESPACE,
  LABEL_MINICLUSTER_UID,
  LABEL_VOLUME,
  commonLabels,
  type StorageVolume,
} from '../api/index.ts';
import { ownerReference, sortedEntries, type Owner, type Rendered } from './kube-object.ts';
import type { DefaultedMiniCluster } from './model.ts';
import { namespaceOf } from './names.ts';

/** As in v1alpha1: every broker pod mounts the same storage. */
const ACCESS_MODES = ['ReadWriteMany'];

type DefaultedStorageVolume = NonNullable<DefaultedMiniCluster['spec']['volumes']>[string];

/**
 * The claim of one `spec.volumes` entry: `<minicluster>.<volume>`. Both parts are DNS labels, so
 * the dot keeps two MiniClusters of one namespace apart (`a` + `b-c` and `a-b` + `c` would meet
 * with a dash).
 */
export function storageClaimName(miniClusterName: string, volumeName: string): string {
  return `${miniClusterName}.${volumeName}`;
}

/**
 * The PersistentVolume of one entry: `<namespace>.<minicluster>.<volume>`. PersistentVolumes are
 * cluster-wide, so the namespace is part of the name: two MiniClusters in different namespaces never
 * meet.
 */
export function persistentVolumeName(namespace: string, miniClusterName: string, volumeName: string): string {
  return `${namespace}.${miniClusterName}.${volumeName}`;
}

/** Whether the operator makes the PersistentVolume itself (v1alpha1 did for hostpath and CSI volumes). */
export function makesPersistentVolume(volume: StorageVolume): boolean {
  return (
    (volume.storageClass ?? HOSTPATH_STORAGE_CLASS) === HOSTPATH_STORAGE_CLASS || volume.driver !== undefined
  );
}

function storageLabels(miniCluster: DefaultedMiniCluster, volumeName: string): Record<string, string> {
  return { ...commonLabels(miniCluster.metadata.name, COMPONENT_STORAGE), [LABEL_VOLUME]: volumeName };
}

function sortedObject(map: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(sortedEntries(map));
}

function persistentVolume(
  miniCluster: DefaultedMiniCluster,
  volumeName: string,
  volume: DefaultedStorageVolume,
  ownerUid: string | undefined,
): Rendered<V1PersistentVolume> {
  const namespace = namespaceOf(miniCluster);
  const labels: Record<string, string> = {
    ...sortedObject(volume.labels),
    ...storageLabels(miniCluster, volumeName),
    [LABEL_MINICLUSTER_NAMESPACE]: namespace,
    [LABEL_DELETE_WITH_MINICLUSTER]: String(volume.delete),
  };
  // Known once the MiniCluster exists: the collector removes only volumes of a MiniCluster (by uid)
  // that is gone, never one a newer MiniCluster of the same name applies.
  if (ownerUid !== undefined) labels[LABEL_MINICLUSTER_UID] = ownerUid;
  const rendered: Rendered<V1PersistentVolume> = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: persistentVolumeName(namespace, miniCluster.metadata.name, volumeName), labels },
    spec: {
      accessModes: [...ACCESS_MODES],
      capacity: { storage: String(volume.capacity) },
      storageClassName: volume.storageClass,
      // Never Delete: Kubernetes would then erase the directory or the CSI volume behind it (a
      // bucket a user made, say) when the claim goes. The operator removes only this object.
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace,
        name: storageClaimName(miniCluster.metadata.name, volumeName),
      },
    },
  };
  if (volume.annotations !== undefined) rendered.metadata.annotations = sortedObject(volume.annotations);
  const spec = rendered.spec ?? {};
  if (volume.driver === undefined) {
    spec.hostPath = { path: volume.path ?? '' };
  } else {
    const csi: NonNullable<V1PersistentVolume['spec']>['csi'] = {
      driver: volume.driver,
      volumeHandle: volume.volumeHandle ?? volume.storageClass,
    };
    if (volume.attributes !== undefined) csi.volumeAttributes = sortedObject(volume.attributes);
    if (volume.secret !== undefined) {
      const secretRef = { name: volume.secret, namespace };
      csi.nodePublishSecretRef = { ...secretRef };
      csi.nodeStageSecretRef = { ...secretRef };
      csi.controllerPublishSecretRef = { ...secretRef };
    }
    spec.csi = csi;
  }
  return rendered;
}

function claim(
  miniCluster: DefaultedMiniCluster,
  volumeName: string,
  volume: DefaultedStorageVolume,
  owner: Owner | undefined,
): Rendered<V1PersistentVolumeClaim> {
  const namespace = namespaceOf(miniCluster);
  const rendered: Rendered<V1PersistentVolumeClaim> = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: storageClaimName(miniCluster.metadata.name, volumeName),
      namespace,
      labels: storageLabels(miniCluster, volumeName),
    },
    spec: {
      accessModes: [...ACCESS_MODES],
      storageClassName: volume.storageClass,
      volumeMode: 'Filesystem',
      resources: { requests: { storage: String(volume.capacity) } },
    },
  };
  if (makesPersistentVolume(volume) && rendered.spec) {
    rendered.spec.volumeName = persistentVolumeName(namespace, miniCluster.metadata.name, volumeName);
  }
  if (volume.claimAnnotations !== undefined) {
    rendered.metadata.annotations = sortedObject(volume.claimAnnotations);
  }
  // With delete: false the claim outlives the MiniCluster, so it has no owner to be collected with.
  if (owner !== undefined && volume.delete) rendered.metadata.ownerReferences = [ownerReference(owner)];
  return rendered;
}

/**
 * The PersistentVolumes and claims of `spec.volumes`, in name order, each volume before its claim.
 * With `owner` (the MiniCluster exists): claims that go with it get it as owner, and volumes its uid
 * as a label (a cluster-wide object cannot have a namespaced owner).
 */
export function renderStorage(
  miniCluster: DefaultedMiniCluster,
  owner?: Owner,
): (Rendered<V1PersistentVolume> | Rendered<V1PersistentVolumeClaim>)[] {
  return sortedEntries(miniCluster.spec.volumes).flatMap(([volumeName, volume]) => [
    ...(makesPersistentVolume(volume) ? [persistentVolume(miniCluster, volumeName, volume, owner?.uid)] : []),
    claim(miniCluster, volumeName, volume, owner),
  ]);
}
