import type { V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { hasOwnSource, type DefaultedContainer, type Volume } from '../api/index.ts';
import { sortedEntries } from './kube-object.ts';

/** The pod volume a MiniCluster container volume (`volumes` / `existingVolumes`) stands for. */
export function podVolume(name: string, volume: Volume): V1Volume {
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
  const emptyDir: NonNullable<V1Volume['emptyDir']> = {};
  if (volume.emptyDirMedium !== undefined) emptyDir.medium = volume.emptyDirMedium;
  if (volume.emptyDirSizeLimit !== undefined) emptyDir.sizeLimit = String(volume.emptyDirSizeLimit);
  return { name, emptyDir };
}

export interface ContainerVolumes {
  readonly volumes: V1Volume[];
  readonly mounts: V1VolumeMount[];
}

/**
 * The container's own volumes and existingVolumes (validation keeps their names apart). An entry
 * of `volumes` without a source mounts the claim of the spec.volumes entry of its name, `claimOf`.
 */
export function containerVolumes(
  container: Pick<DefaultedContainer, 'volumes' | 'existingVolumes'>,
  claimOf: (volumeName: string) => string,
): ContainerVolumes {
  const declared = [...sortedEntries(container.volumes), ...sortedEntries(container.existingVolumes)];
  return {
    volumes: declared.map(([name, volume]) =>
      hasOwnSource(volume)
        ? podVolume(name, volume)
        : { name, persistentVolumeClaim: { claimName: claimOf(name) } },
    ),
    mounts: declared.map(([name, volume]) => ({ name, mountPath: volume.path, readOnly: volume.readOnly })),
  };
}
