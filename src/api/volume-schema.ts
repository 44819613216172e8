/**
 * A container's volumes in their v1alpha2 shape (the Go operator's ContainerVolume): one map per
 * container, each entry one source, or none. Without a source, an entry mounts the spec.volumes
 * storage of its name, or, when there is none, an empty directory the pod's containers share (the
 * Go operator gave it a claim without a name, which Kubernetes refuses). An emptyDir without a path
 * is mounted at /dev/shm, where the Go operator mounts every emptyDir. The rules across volumes are
 * in volume-cel.ts, their validator twins in volume-rules.ts.
 */
import { Type } from '@sinclair/typebox';
import {
  EMPTY_DIR_FIELDS_RULE,
  VOLUME_ITEMS_SOURCE_RULE,
  VOLUME_PROPERTIES,
} from './shared/container-fields.ts';
import {
  DNS_LABEL_MAX_LENGTH,
  MAX_VOLUMES_PER_CONTAINER,
  SHORT_STRING_MAX_LENGTH,
  VOLUME_PATH_MAX_LENGTH,
} from './shared/limits.ts';
import {
  ABSOLUTE_PATH_PATTERN,
  NO_NUL_PATTERN,
  celRules,
  stringEnum,
  stringMap,
} from './shared/schema-helpers.ts';
import { CSI_DRIVER_PATTERN } from './shared/storage-schema.ts';
import { VOLUME_MAP_RULES } from './shared/volume-cel.ts';
import { DEFAULT_EMPTY_DIR_PATH } from './go-defaults.ts';

/** emptyDir media: the Go operator's `memory` (its only one), and Kubernetes' own spellings. */
export const EMPTY_DIR_MEDIA = ['memory', 'Memory', 'HugePages'] as const;

/** The sources of a volume, as the messages name them. */
export const V1ALPHA2_SOURCES = 'configMapName, secretName, claimName, hostPath, csiDriver or emptyDir: true';

export const VOLUME_RULES = {
  oneSource: {
    rule: '[has(self.configMapName), has(self.secretName), has(self.claimName), has(self.hostPath), has(self.csiDriver), has(self.emptyDir) && self.emptyDir].filter(source, source).size() <= 1',
    message: `a volume has several sources; keep one of ${V1ALPHA2_SOURCES}`,
    reason: 'FieldValueInvalid',
  },
  items: VOLUME_ITEMS_SOURCE_RULE,
  emptyDirFields: EMPTY_DIR_FIELDS_RULE,
  csiAttributes: {
    rule: '!has(self.csiDriverAttributes) || has(self.csiDriver)',
    message: 'csiDriverAttributes applies to csiDriver volumes only; set csiDriver or remove them',
    fieldPath: '.csiDriverAttributes',
    reason: 'FieldValueForbidden',
  },
  path: {
    rule: 'has(self.path) || (has(self.emptyDir) && self.emptyDir)',
    message: `path is required: where the volume is mounted in the container (only an emptyDir may leave it out, for ${DEFAULT_EMPTY_DIR_PATH})`,
    fieldPath: '.path',
    reason: 'FieldValueRequired',
  },
} as const;

export const ContainerVolumeSchema = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        description: `Where the volume is mounted in the container (an absolute path). Required, but for an emptyDir: ${DEFAULT_EMPTY_DIR_PATH}.`,
        minLength: 1,
        maxLength: VOLUME_PATH_MAX_LENGTH,
        pattern: ABSOLUTE_PATH_PATTERN,
      }),
    ),
    hostPath: VOLUME_PROPERTIES.hostPath,
    configMapName: VOLUME_PROPERTIES.configMapName,
    items: VOLUME_PROPERTIES.items,
    claimName: VOLUME_PROPERTIES.claimName,
    secretName: VOLUME_PROPERTIES.secretName,
    readOnly: VOLUME_PROPERTIES.readOnly,
    emptyDirMedium: Type.Optional(
      stringEnum(
        [...EMPTY_DIR_MEDIA],
        "Storage medium of the emptyDir: memory (tmpfs; Memory too) or HugePages. Unset: the node's disk.",
      ),
    ),
    emptyDirSizeLimit: VOLUME_PROPERTIES.emptyDirSizeLimit,
    csiDriver: Type.Optional(
      Type.String({
        description: 'Mount an inline volume of this CSI driver (e.g. gcs.csi.ofek.dev).',
        minLength: 1,
        maxLength: DNS_LABEL_MAX_LENGTH,
        pattern: CSI_DRIVER_PATTERN,
      }),
    ),
    csiDriverAttributes: Type.Optional(
      stringMap('With csiDriver: the volume attributes the driver reads.', {
        maxLength: SHORT_STRING_MAX_LENGTH,
        pattern: NO_NUL_PATTERN,
      }),
    ),
    emptyDir: Type.Optional(
      Type.Boolean({
        description:
          'Mount an empty directory that lives as long as the pod. Unset: false (no default is written, as v1alpha1 writes none).',
      }),
    ),
  },
  {
    description: `A volume mounted into the container: one source (${V1ALPHA2_SOURCES}), or none: then the spec.volumes entry of that name, or, without one, an empty directory the pod's containers share.`,
    additionalProperties: false,
    ...celRules(...Object.values(VOLUME_RULES)),
  },
);

/** A container's `volumes`: volume name (a DNS label) to volume. */
export function containerVolumeMap(description: string) {
  return Type.Record(Type.String(), ContainerVolumeSchema, {
    description,
    maxProperties: MAX_VOLUMES_PER_CONTAINER,
    ...celRules(...VOLUME_MAP_RULES),
  });
}
