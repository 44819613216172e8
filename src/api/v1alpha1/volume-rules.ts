/**
 * Volumes of the pods: each has one source and a DNS label name outside the operator's own names;
 * a name means one source in the whole pod (containers share pod volumes); mount paths are unique
 * in a container and stay off the Flux container's own mounts, as Kubernetes requires. The
 * CRD's CEL rules for the same checks are in volume-cel.ts.
 */
import { fieldPath, indexPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import { duplicates } from '../shared/rule-helpers.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import { volumeFieldProblems, volumeNameProblems, volumeSourcesAmong } from '../shared/volume-problems.ts';
import type { Volume } from '../shared/field-types.ts';
import type { DefaultedContainerV1alpha1 } from './schema.ts';
import { OPERATOR_MOUNT_PATHS, VOLUME_MAPS } from '../shared/volume-cel.ts';

const VOLUME_SOURCES = ['configMapName', 'secretName', 'claimName', 'hostPath', 'emptyDir'] as const;

function volumeSources(volume: Volume): string[] {
  return volumeSourcesAmong(VOLUME_SOURCES, volume);
}

/**
 * What makes two mounts of the same pod volume the same volume (path and readOnly may differ):
 * compared as the CEL rule compares them (`emptyDir: false` is no emptyDir; map order is no
 * difference).
 */
function volumeSourceKey(volume: Volume): string {
  const { configMapName, secretName, claimName, hostPath, emptyDirMedium, emptyDirSizeLimit, items } = volume;
  const sortedItems =
    items === undefined ? undefined : Object.entries(items).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([
    configMapName,
    secretName,
    claimName,
    hostPath,
    volume.emptyDir === true,
    emptyDirMedium,
    emptyDirSizeLimit,
    sortedItems,
  ]);
}

function volumeEntryProblems(
  path: string,
  mapName: (typeof VOLUME_MAPS)[number],
  volumeName: string,
  volume: Volume,
): Problem[] {
  const problems: Problem[] = volumeNameProblems(path, volumeName);
  const sources = volumeSources(volume);
  // Without a source, an entry of `volumes` names storage of spec.volumes (storage-rules.ts).
  if (sources.length === 0 && mapName === 'existingVolumes') {
    problems.push({
      path,
      message:
        'has no source; set one of configMapName, secretName, claimName, hostPath or emptyDir: true (storage of spec.volumes is mounted from volumes)',
    });
  } else if (sources.length > 1) {
    problems.push({ path, message: `has several sources (${sources.join(', ')}); keep exactly one` });
  }
  problems.push(...volumeFieldProblems(path, volume));
  return problems;
}

/** The mounts of a container: every entry of its volumes and existingVolumes, with its field path. */
function mounts(container: DefaultedContainerV1alpha1, containerPath: string) {
  return VOLUME_MAPS.flatMap((mapName) =>
    Object.entries(container[mapName] ?? {}).map(([volumeName, volume]) => ({
      mapName,
      volumeName,
      volume,
      path: indexPath(`${containerPath}.${mapName}`, volumeName),
    })),
  );
}

function mountPathProblems(container: DefaultedContainerV1alpha1, containerPath: string): Problem[] {
  const containerMounts = mounts(container, containerPath);
  const problems = duplicates(containerMounts, (mount) => mount.volume.path).map(({ index, firstIndex }) => ({
    path: fieldPath(containerMounts[index]?.path ?? containerPath, 'path'),
    message: `is also the path of ${containerMounts[firstIndex]?.path}; mount paths in a container must be unique`,
  }));
  if (container.runFlux) {
    for (const mount of containerMounts) {
      if (OPERATOR_MOUNT_PATHS.includes(mount.volume.path)) {
        problems.push({
          path: fieldPath(mount.path, 'path'),
          message: `is where the operator mounts its own files in the Flux container (${OPERATOR_MOUNT_PATHS.join(', ')}); choose another path`,
        });
      }
    }
  }
  return problems;
}

export const volumes: SemanticRuleV1alpha1 = {
  name: 'volumes have one source, DNS label names, one definition per pod volume name, unique mount paths',
  check: ({ spec }) => {
    const problems: Problem[] = [];
    // Pod volumes are shared by all containers: a name must mean the same source everywhere.
    const firstDefinition = new Map<string, { path: string; sourceKey: string }>();
    spec.containers.forEach((container, index) => {
      const containerPath = `spec.containers[${index}]`;
      for (const { mapName, volumeName, volume, path } of mounts(container, containerPath)) {
        problems.push(...volumeEntryProblems(path, mapName, volumeName, volume));
        if (mapName === 'existingVolumes' && container.volumes?.[volumeName] !== undefined) {
          problems.push({
            path,
            message: `is also in ${containerPath}.volumes; keep each volume name in one of volumes and existingVolumes`,
          });
          continue;
        }
        const sourceKey = volumeSourceKey(volume);
        const first = firstDefinition.get(volumeName);
        if (first === undefined) firstDefinition.set(volumeName, { path, sourceKey });
        else if (first.sourceKey !== sourceKey) {
          problems.push({
            path,
            message: `has a different source than ${first.path}; a pod volume name means one source, so rename one of them`,
          });
        }
      }
      problems.push(...mountPathProblems(container, containerPath));
    });
    return problems;
  },
};
