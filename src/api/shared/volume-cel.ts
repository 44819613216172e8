/**
 * Volumes: the CEL rules the CRD carries, twins of the validator's rules in volume-rules.ts. The
 * schema takes these and the rules take the schema's types, so the two halves live apart.
 */
import { DNS_LABEL_MAX_LENGTH } from './limits.ts';
import { celRunsFlux } from './rule-helpers.ts';
import { DNS_1123_LABEL_PATTERN, celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

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

export const VOLUME_MAPS = ['volumes', 'existingVolumes'] as const;

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

/** The fields that make a volume's source, beside emptyDir: strings, and those compared whole. */
export interface VolumeSourceFields {
  readonly strings: readonly string[];
  readonly compared: readonly string[];
}

export const VOLUME_SOURCE_FIELDS: VolumeSourceFields = {
  strings: ['configMapName', 'secretName', 'claimName', 'hostPath', 'emptyDirMedium'],
  compared: ['emptyDirSizeLimit', 'items'],
};

/** CEL: two volumes (`a`, `b`) have the same source (volumeSourceKey), as `fields` make it. */
export function celSameSource(
  a: string,
  b: string,
  fields: VolumeSourceFields = VOLUME_SOURCE_FIELDS,
): string {
  const strings = fields.strings.map((field) => `${celOptional(a, field)} == ${celOptional(b, field)}`);
  const compared = fields.compared.map(
    (field) =>
      `has(${a}.${field}) == has(${b}.${field}) && (!has(${a}.${field}) || ${a}.${field} == ${b}.${field})`,
  );
  return [
    ...strings,
    `(has(${a}.emptyDir) && ${a}.emptyDir) == (has(${b}.emptyDir) && ${b}.emptyDir)`,
    ...compared,
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

/** CEL: the list of OPERATOR_MOUNT_PATHS. */
export const CEL_OPERATOR_PATHS = `[${OPERATOR_MOUNT_PATHS.map((path) => `'${path}'`).join(', ')}]`;

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
        `(!has(container.${map}) || !container.${map}.exists(name, container.${map}[name].path in ${CEL_OPERATOR_PATHS}))`,
    ).join(' && ')})`,
    message: `the Flux container mounts a volume where the operator mounts its own files (${OPERATOR_MOUNT_PATHS.join(', ')}); choose another path`,
    fieldPath: '.containers',
    reason: 'FieldValueForbidden',
  },
];
