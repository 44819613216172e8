/**
 * Schema of `spec.volumes`: named storage the operator provisions, with the Go Flux Operator's
 * v1alpha1 field names (`MiniClusterVolume`). Containers mount an entry by naming it in their own
 * `volumes` with a path and no source of their own. The CEL rules of one entry are here; the rules
 * across the spec and the validator's twins are in storage-rules.ts.
 */
import { Type } from '@sinclair/typebox';
import {
  DNS_LABEL_MAX_LENGTH,
  MAX_MAP_ENTRIES,
  SHORT_STRING_MAX_LENGTH,
  VOLUME_PATH_MAX_LENGTH,
} from './limits.ts';
import { celLabelKeys, celNoReservedLabelKeys } from './qualified-names.ts';
import {
  HOST_PATH_PATTERN,
  NO_NUL_PATTERN,
  celRules,
  labelMap,
  objectName,
  quantity,
  stringMap,
  withDefault,
} from './schema-helpers.ts';
import { DEFAULT_CAPACITY, HOSTPATH_STORAGE_CLASS, STORAGE_VOLUME_RULES } from './storage-cel.ts';
import { VOLUME_MAP_RULES } from './volume-cel.ts';

/** CSI driver names: at most 63 characters, alphanumerics, `-` and `.` (the CSI spec). */
export const CSI_DRIVER_PATTERN = '^[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?$';

export const StorageVolumeSchema = Type.Object(
  {
    storageClass: withDefault(
      objectName(
        'Storage class of the claim (and of the PersistentVolume the operator makes). `hostpath` (the default): a directory of the node, `path`; with `driver`: a CSI volume; any other class without a driver: a claim its provisioner fills.',
      ),
      HOSTPATH_STORAGE_CLASS,
    ),
    path: Type.Optional(
      Type.String({
        description:
          "hostpath: the directory of the node's file system the volume is (an absolute path without `..`); required there. Other classes do not read it.",
        minLength: 1,
        maxLength: VOLUME_PATH_MAX_LENGTH,
        pattern: HOST_PATH_PATTERN,
      }),
    ),
    capacity: withDefault(
      quantity('Size of the claim (and of the PersistentVolume), e.g. 5Gi. Must be more than zero.'),
      DEFAULT_CAPACITY,
    ),
    delete: withDefault(
      Type.Boolean({
        description:
          'true: the claim and the PersistentVolume the operator made go with the MiniCluster (the data behind an operator-made PersistentVolume stays: its reclaim policy is Retain). false: both outlive it, and a MiniCluster of the same name in the same namespace takes them up again.',
      }),
      true,
    ),
    labels: Type.Optional(
      labelMap(
        "Labels of the PersistentVolume (the operator's own label keys are reserved).",
        celLabelKeys('spec.volumes[].labels'),
        celNoReservedLabelKeys('spec.volumes[].labels'),
      ),
    ),
    annotations: Type.Optional(
      stringMap(
        'Annotations of the PersistentVolume.',
        { maxLength: SHORT_STRING_MAX_LENGTH, pattern: NO_NUL_PATTERN },
        celLabelKeys('spec.volumes[].annotations'),
      ),
    ),
    claimAnnotations: Type.Optional(
      stringMap(
        'Annotations of the PersistentVolumeClaim (some CSI drivers and provisioners read theirs there).',
        { maxLength: SHORT_STRING_MAX_LENGTH, pattern: NO_NUL_PATTERN },
        celLabelKeys('spec.volumes[].claimAnnotations'),
      ),
    ),
    driver: Type.Optional(
      Type.String({
        description:
          'CSI driver of the volume (e.g. gcs.csi.ofek.dev): the operator makes a CSI PersistentVolume for it. Not with hostpath.',
        minLength: 1,
        maxLength: DNS_LABEL_MAX_LENGTH,
        pattern: CSI_DRIVER_PATTERN,
      }),
    ),
    volumeHandle: Type.Optional(
      Type.String({
        description: "With driver: the CSI volume handle. Default: the storage class's name.",
        minLength: 1,
        maxLength: SHORT_STRING_MAX_LENGTH,
        pattern: NO_NUL_PATTERN,
      }),
    ),
    attributes: Type.Optional(
      stringMap('With driver: the CSI volume attributes.', {
        maxLength: SHORT_STRING_MAX_LENGTH,
        pattern: NO_NUL_PATTERN,
      }),
    ),
    secret: Type.Optional(
      objectName(
        "With driver: a Secret of the MiniCluster's namespace the CSI driver gets for node publish, node stage and controller publish.",
      ),
    ),
    secretNamespace: Type.Optional(
      Type.String({
        description:
          "Not supported (a v1alpha1 field of the Go Flux Operator: the namespace of `secret`); refused: the Secret must be in the MiniCluster's namespace.",
        maxLength: DNS_LABEL_MAX_LENGTH,
        pattern: NO_NUL_PATTERN,
      }),
    ),
  },
  {
    description:
      'Storage the operator provisions: a PersistentVolumeClaim, and a PersistentVolume for hostpath and CSI (driver) volumes.',
    additionalProperties: false,
    ...celRules(...STORAGE_VOLUME_RULES),
  },
);

export const StorageVolumesSchema = Type.Record(Type.String(), StorageVolumeSchema, {
  description:
    'Named storage the operator provisions (v1alpha1 `volumes`); a container mounts one by naming it in its own `volumes` with a path and no source.',
  maxProperties: MAX_MAP_ENTRIES,
  ...celRules(...VOLUME_MAP_RULES),
});
