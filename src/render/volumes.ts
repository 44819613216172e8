import type { V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { volumeMountPath, volumeSources } from '../api/v1alpha2/index.ts';
import { sortedEntries } from './kube-object.ts';
import type { ContainerModel } from './model.ts';

/** A container's volume in its v1alpha2 shape (a v1alpha1 one is converted to it). */
export type ContainerVolumeModel = NonNullable<ContainerModel['volumes']>[string];

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
  container: { readonly volumes?: ContainerModel['volumes'] },
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
