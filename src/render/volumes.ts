import { posix } from 'node:path';
import type { V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { SHM_MOUNT_PATH, shmSizeLimit } from '../api/index.ts';
import { volumeMountPath, volumeSources } from '../api/index.ts';
import { sortedEntries } from './kube-object.ts';
import type { DefaultedContainer, DefaultedMiniCluster } from './model.ts';

/** A container's volume in its v1alpha2 shape (a v1alpha1 one is converted to it). */
export type ContainerVolumeModel = NonNullable<DefaultedContainer['volumes']>[string];

/** Kubernetes' spelling of an emptyDir medium (the Go operator's `memory` is `Memory`). */
function emptyDirMedium(medium: NonNullable<ContainerVolumeModel['emptyDirMedium']>): string {
  return medium === 'memory' ? 'Memory' : medium;
}

/**
 * The pod volume a container volume with a source of its own stands for: a ConfigMap, Secret or claim
 * of the namespace, a directory of the node, an inline CSI volume or an empty directory.
 */
export function podVolume(name: string, volume: ContainerVolumeModel): V1Volume {
  const items = sortedEntries(volume.items).map(([key, path]) => ({ key, path }));
  const withItems = items.length > 0 ? { items } : {};
  if (volume.configMapName !== undefined)
    return { name, configMap: { name: volume.configMapName, ...withItems } };
  if (volume.secretName !== undefined)
    return { name, secret: { secretName: volume.secretName, ...withItems } };
  if (volume.claimName !== undefined) {
    return { name, persistentVolumeClaim: { claimName: volume.claimName, readOnly: volume.readOnly } };
  }
  if (volume.hostPath !== undefined) return { name, hostPath: { path: volume.hostPath } };
  if (volume.csiDriver !== undefined) {
    const csi: NonNullable<V1Volume['csi']> = { driver: volume.csiDriver };
    if (volume.readOnly) csi.readOnly = true;
    if (volume.csiDriverAttributes !== undefined)
      csi.volumeAttributes = Object.fromEntries(sortedEntries(volume.csiDriverAttributes));
    return { name, csi };
  }
  const emptyDir: NonNullable<V1Volume['emptyDir']> = {};
  if (volume.emptyDirMedium !== undefined) emptyDir.medium = emptyDirMedium(volume.emptyDirMedium);
  if (volume.emptyDirSizeLimit !== undefined) emptyDir.sizeLimit = String(volume.emptyDirSizeLimit);
  return { name, emptyDir };
}

export interface ContainerVolumes {
  readonly volumes: V1Volume[];
  readonly mounts: V1VolumeMount[];
}

/**
 * The container's volumes, in name order. An entry without a source mounts the claim of the
 * spec.volumes entry of its name (`claimOf`), or, when there is none, an empty directory the pod's
 * containers share under that name.
 */
export function containerVolumes(
  container: { readonly volumes?: DefaultedContainer['volumes'] },
  storage: { readonly names: ReadonlySet<string>; readonly claimOf: (volumeName: string) => string },
): ContainerVolumes {
  const declared = sortedEntries(container.volumes);
  return {
    volumes: declared.map(([name, volume]): V1Volume => {
      if (volumeSources(volume).length > 0) return podVolume(name, volume);
      if (storage.names.has(name))
        return { name, persistentVolumeClaim: { claimName: storage.claimOf(name) } };
      return { name, emptyDir: {} };
    }),
    mounts: declared.map(([name, volume]) => ({
      name,
      mountPath: volumeMountPath(volume),
      readOnly: volume.readOnly,
    })),
  };
}

/** The pod volume of the brokers' /dev/shm (the operator's prefix keeps it off the users' names). */
export const VOLUME_SHM = 'flux-operator-shm';

/** A mount path as the container sees it: `/dev/shm/` and `/dev//shm` are `/dev/shm`. */
function samePath(a: string, b: string): boolean {
  const normal = (path: string) => posix.normalize(path).replace(/(.)\/+$/, '$1');
  return normal(a) === normal(b);
}

/** The brokers' memory-backed /dev/shm: the pod volume, and the mount of each container that takes it. */
export interface SharedMemory {
  readonly volume: V1Volume;
  readonly mount: V1VolumeMount;
}

/**
 * The memory-backed /dev/shm of a broker pod (docs/mpi.md), sized by `spec.pod.shmSize` (shm-rules.ts
 * `shmSizeLimit`: unset, 1Gi or a smaller memory limit); undefined when the spec turns it off.
 */
export function sharedMemory(miniCluster: Pick<DefaultedMiniCluster, 'spec'>): SharedMemory | undefined {
  const sizeLimit = shmSizeLimit(miniCluster.spec);
  if (sizeLimit === undefined) return undefined;
  return {
    volume: { name: VOLUME_SHM, emptyDir: { medium: 'Memory', sizeLimit } },
    mount: { name: VOLUME_SHM, mountPath: SHM_MOUNT_PATH },
  };
}

/** Whether a container mounts a volume of its own at /dev/shm (then it keeps it: no second mount there). */
export function mountsOwnSharedMemory(ownMounts: readonly V1VolumeMount[]): boolean {
  return ownMounts.some((mount) => samePath(mount.mountPath, SHM_MOUNT_PATH));
}
