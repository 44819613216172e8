/**
 * Volumes of the pods: each has one source and a DNS label name outside the operator's own names;
 * a name means one source in the whole pod (containers share pod volumes); mount paths are unique
 * in a container and stay off the Flux container's own mounts, as Kubernetes requires. The
 * CRD's CEL rules for the same checks are in volume-cel.ts.
 */
import { DNS_LABEL_MAX_LENGTH } from '../shared/limits.ts';
import { fieldPath, indexPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import { duplicates } from '../shared/rule-helpers.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import { DNS_1123_LABEL_PATTERN } from '../shared/schema-helpers.ts';
import type { DefaultedContainerV1alpha1, Volume } from './schema.ts';
import { OPERATOR_MOUNT_PATHS, OPERATOR_VOLUME_NAME_PREFIX, VOLUME_MAPS } from '../shared/volume-cel.ts';

const dns1123Label = new RegExp(DNS_1123_LABEL_PATTERN);
const VOLUME_SOURCES = ['configMapName', 'secretName', 'claimName', 'hostPath', 'emptyDir'] as const;

/** Which of `sources` the volume sets (emptyDir: only when true); v1alpha2's volumes have more. */
export function volumeSourcesAmong<V extends { emptyDir?: boolean }>(
  sources: readonly (keyof V & string)[],
  volume: V,
): string[] {
  return sources.filter((source) =>
    source === 'emptyDir' ? volume.emptyDir === true : volume[source] !== undefined,
  );
}

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

/** A pod volume name: a DNS label outside the operator's own names. */
export function volumeNameProblems(path: string, volumeName: string): Problem[] {
  if (volumeName.length > DNS_LABEL_MAX_LENGTH || !dns1123Label.test(volumeName)) {
    return [
      {
        path,
        message: `volume name ${JSON.stringify(volumeName)} must be a DNS label (lowercase letters, digits and "-", at most ${DNS_LABEL_MAX_LENGTH} characters); rename it`,
      },
    ];
  }
  if (volumeName.startsWith(OPERATOR_VOLUME_NAME_PREFIX)) {
    return [
      {
        path,
        message: `volume names starting with ${OPERATOR_VOLUME_NAME_PREFIX} are the operator's own; rename it`,
      },
    ];
  }
  return [];
}

/** The fields of a volume that volumeFieldProblems reads, the same in v1alpha2. */
interface ItemsAndEmptyDir {
  configMapName?: string;
  secretName?: string;
  items?: Readonly<Record<string, string>>;
  emptyDir?: boolean;
  emptyDirMedium?: string;
  emptyDirSizeLimit?: unknown;
}

/** items only with a ConfigMap or Secret, and no empty key; the emptyDir settings only with emptyDir: true. */
export function volumeFieldProblems(path: string, volume: ItemsAndEmptyDir): Problem[] {
  const problems: Problem[] = [];
  if (volume.items !== undefined && volume.configMapName === undefined && volume.secretName === undefined) {
    problems.push({
      path: fieldPath(path, 'items'),
      message: 'applies to configMapName or secretName volumes only; remove items',
    });
  }
  if (Object.keys(volume.items ?? {}).includes('')) {
    problems.push({ path: fieldPath(path, 'items'), message: 'keys must not be empty' });
  }
  if (
    (volume.emptyDirMedium !== undefined || volume.emptyDirSizeLimit !== undefined) &&
    volume.emptyDir !== true
  ) {
    problems.push({
      path,
      message:
        'emptyDirMedium and emptyDirSizeLimit apply to emptyDir: true volumes only; set emptyDir or remove them',
    });
  }
  return problems;
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
