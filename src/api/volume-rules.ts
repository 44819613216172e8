/**
 * Volumes of the pods: each has one source and a DNS label name outside the operator's own names;
 * a name means one source in the whole pod (containers share pod volumes); mount paths are unique
 * in a container and stay off the Flux container's own mounts, as Kubernetes requires. The
 * validator's rule and the CRD's CEL rules for the same checks sit side by side.
 */
import { DNS_LABEL_MAX_LENGTH } from './limits.ts';
import { fieldPath, indexPath } from './problems.ts';
import type { Problem } from './problems.ts';
import { duplicates, celRunsFlux } from './rule-helpers.ts';
import type { SemanticRule } from './rule-helpers.ts';
import { DNS_1123_LABEL_PATTERN, celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import type { DefaultedContainer, Volume } from './schema.ts';

const dns1123Label = new RegExp(DNS_1123_LABEL_PATTERN);

/** The operator names its own pod volumes with this prefix (src/render/job.ts). */
export const OPERATOR_VOLUME_NAME_PREFIX = 'flux-operator-';

/** Where the operator mounts its own volumes in the Flux container (src/render/paths.ts). */
export const OPERATOR_MOUNT_PATHS: readonly string[] = [
  '/etc/flux/config',
  '/flux_operator',
  '/etc/flux-operator/curve',
  '/etc/flux-operator/munge',
  '/mnt/flux',
];

const VOLUME_MAPS = ['volumes', 'existingVolumes'] as const;
const VOLUME_SOURCES = ['configMapName', 'secretName', 'claimName', 'hostPath', 'emptyDir'] as const;

function volumeSources(volume: Volume): string[] {
  return VOLUME_SOURCES.filter((source) =>
    source === 'emptyDir' ? volume.emptyDir === true : volume[source] !== undefined,
  );
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

/** The mounts of a container: every entry of its volumes and existingVolumes, with its field path. */
function mounts(container: DefaultedContainer, containerPath: string) {
  return VOLUME_MAPS.flatMap((mapName) =>
    Object.entries(container[mapName] ?? {}).map(([volumeName, volume]) => ({
      mapName,
      volumeName,
      volume,
      path: indexPath(`${containerPath}.${mapName}`, volumeName),
    })),
  );
}

function mountPathProblems(container: DefaultedContainer, containerPath: string): Problem[] {
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

export const volumes: SemanticRule = {
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

// ---------------------------------------------------------------------------------------------
// The same checks in CEL.

/** Rules on a volume map (`volumes`, `existingVolumes`). */
export const VOLUME_MAP_RULES: CelRule[] = [
  {
    rule: `self.all(name, name.size() <= ${DNS_LABEL_MAX_LENGTH} && name.matches(${celRegex(DNS_1123_LABEL_PATTERN)}))`,
    message: `volume names must be DNS labels (lowercase letters, digits and "-", at most ${DNS_LABEL_MAX_LENGTH} characters)`,
    reason: 'FieldValueInvalid',
  },
  {
    rule: `self.all(name, !name.startsWith('${OPERATOR_VOLUME_NAME_PREFIX}'))`,
    message: `volume names starting with ${OPERATOR_VOLUME_NAME_PREFIX} are the operator's own; rename the volume`,
    reason: 'FieldValueForbidden',
  },
];

/** Rules on a volume's `items`. */
export const VOLUME_ITEMS_RULES: CelRule[] = [
  { rule: "self.all(key, key != '')", message: 'items keys must not be empty', reason: 'FieldValueInvalid' },
];

function celOptional(volume: string, field: string): string {
  return `(has(${volume}.${field}) ? ${volume}.${field} : '')`;
}

/** CEL: two volumes (`a`, `b`) have the same source (volumeSourceKey). */
function celSameSource(a: string, b: string): string {
  const strings = ['configMapName', 'secretName', 'claimName', 'hostPath', 'emptyDirMedium'].map(
    (field) => `${celOptional(a, field)} == ${celOptional(b, field)}`,
  );
  const present = ['emptyDirSizeLimit', 'items'].map(
    (field) =>
      `has(${a}.${field}) == has(${b}.${field}) && (!has(${a}.${field}) || ${a}.${field} == ${b}.${field})`,
  );
  return [
    ...strings,
    `(has(${a}.emptyDir) && ${a}.emptyDir) == (has(${b}.emptyDir) && ${b}.emptyDir)`,
    ...present,
  ].join(' && ');
}

/** CEL: the volumes named alike in two volume maps have the same source. */
function celMapsAgree(first: string, second: string): string {
  return `(!has(${first}) || !has(${second}) || ${first}.all(name, !(name in ${second}) || (${celSameSource(`${first}[name]`, `${second}[name]`)})))`;
}

/** CEL: no two entries of the volume maps `first` and `second` (maybe the same map) share a path. */
function celPathsDistinct(first: string, second: string): string {
  if (first === second) {
    return `!has(${first}) || ${first}.all(name, !${first}.exists(other, other != name && ${first}[other].path == ${first}[name].path))`;
  }
  return `!has(${first}) || !has(${second}) || !${first}.exists(name, ${second}.exists(other, ${second}[other].path == ${first}[name].path))`;
}

const PATHS_MESSAGE =
  'two volumes of the container have the same path; mount paths in a container must be unique';

/** Rules on a container: one per pair of maps, since the API server prices each rule on its own. */
export const CONTAINER_VOLUME_RULES: CelRule[] = [
  ['self.volumes', 'self.volumes'],
  ['self.existingVolumes', 'self.existingVolumes'],
  ['self.volumes', 'self.existingVolumes'],
].map(([first = '', second = '']) => ({
  rule: celPathsDistinct(first, second),
  message: PATHS_MESSAGE,
  fieldPath: first === second ? first.slice('self'.length) : '.existingVolumes',
  reason: 'FieldValueDuplicate',
}));

const OPERATOR_PATHS_LIST = `[${OPERATOR_MOUNT_PATHS.map((path) => `'${path}'`).join(', ')}]`;

/**
 * Rules on the spec. Volumes against volumes, existingVolumes against existingVolumes, and volumes
 * against existingVolumes (every ordered pair of containers covers the fourth), each a rule of its
 * own since the API server prices each rule on its own.
 */
export function podVolumeAgreementRules(list: 'containers' | 'services'): CelRule[] {
  const self = list === 'containers' ? 'self.containers' : 'self.services';
  const guard = list === 'containers' ? '' : '!has(self.services) || ';
  return [
    ['volumes', 'volumes'],
    ['existingVolumes', 'existingVolumes'],
    ['volumes', 'existingVolumes'],
  ].map(([first = '', second = '']) => ({
    rule: `${guard}${self}.all(first, ${self}.all(second, ${celMapsAgree(`first.${first}`, `second.${second}`)}))`,
    message: `a volume name has different sources in different ${list} (or in volumes and existingVolumes); a pod volume name means one source, so rename one of them`,
    fieldPath: `.${list}`,
    reason: 'FieldValueInvalid' as const,
  }));
}

export const SPEC_VOLUME_RULES: CelRule[] = [
  ...podVolumeAgreementRules('containers'),
  ...podVolumeAgreementRules('services'),
  {
    rule: `self.containers.all(container, !${celRunsFlux('self', 'container')} || ${VOLUME_MAPS.map(
      (map) =>
        `(!has(container.${map}) || !container.${map}.exists(name, container.${map}[name].path in ${OPERATOR_PATHS_LIST}))`,
    ).join(' && ')})`,
    message: `the Flux container mounts a volume where the operator mounts its own files (${OPERATOR_MOUNT_PATHS.join(', ')}); choose another path`,
    fieldPath: '.containers',
    reason: 'FieldValueForbidden',
  },
];
