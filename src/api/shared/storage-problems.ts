/**
 * `spec.volumes` (storage the operator provisions), as both versions check it: each entry is
 * complete for its kind (a hostpath entry names its directory, CSI-only fields need a driver, the
 * capacity is more than zero, labels and annotations are qualified names); and whether a container
 * volume has a source of its own or names an entry. The CRD's CEL rules for the same checks are in
 * storage-cel.ts.
 */
import type { Static } from '@sinclair/typebox';
import type { VolumeSchema } from './container-fields.ts';
import { RESERVED_LABEL_KEYS } from './labels.ts';
import { MAX_QUANTITY } from './limits.ts';
import { fieldPath, indexPath } from './problems.ts';
import type { Problem } from './problems.ts';
import { QUALIFIED_NAME_MESSAGE, isQualifiedName } from './qualified-names.ts';
import { quantityNanos, unitsToNanos } from './quantity.ts';
import type { Defaulted } from './schema-helpers.ts';
import type { StorageVolumeSchema } from './storage-schema.ts';
import { HOSTPATH_STORAGE_CLASS, SECRET_NAMESPACE_MESSAGE } from './storage-cel.ts';
import { volumeNameProblems } from './volume-problems.ts';

type Volume = Static<typeof VolumeSchema>;

/** Whether a container volume has a source of its own; without one it names a `spec.volumes` entry. */
export function hasOwnSource(volume: Volume): boolean {
  return (
    volume.configMapName !== undefined ||
    volume.secretName !== undefined ||
    volume.claimName !== undefined ||
    volume.hostPath !== undefined ||
    volume.emptyDir === true
  );
}

type StorageVolume = Defaulted<typeof StorageVolumeSchema>;

function keyProblems(path: string, map: Record<string, string> | undefined, reserved: boolean): Problem[] {
  return Object.keys(map ?? {}).flatMap((key) => {
    if (!isQualifiedName(key))
      return [{ path: indexPath(path, key), message: `${QUALIFIED_NAME_MESSAGE}; rename it` }];
    return reserved && RESERVED_LABEL_KEYS.includes(key)
      ? [
          {
            path: indexPath(path, key),
            message: 'is set by the operator (its selectors rely on it); remove it',
          },
        ]
      : [];
  });
}

function entryProblems(path: string, volume: StorageVolume): Problem[] {
  const problems: Problem[] = [];
  const hostpath = volume.storageClass === HOSTPATH_STORAGE_CLASS;
  if (hostpath && volume.path === undefined) {
    problems.push({
      path: fieldPath(path, 'path'),
      message:
        'is required for a hostpath volume: the directory of the node it is; set it, or set another storageClass',
    });
  }
  if (hostpath && volume.driver !== undefined) {
    problems.push({
      path: fieldPath(path, 'driver'),
      message:
        'is for CSI volumes, and a hostpath volume is a directory of the node; remove driver or set the storageClass of the driver',
    });
  }
  if (volume.driver === undefined) {
    for (const field of ['volumeHandle', 'attributes', 'secret'] as const) {
      if (volume[field] !== undefined) {
        problems.push({
          path: fieldPath(path, field),
          message: 'applies to CSI volumes only; set driver or remove it',
        });
      }
    }
  }
  if (volume.secretNamespace !== undefined) {
    problems.push({ path: fieldPath(path, 'secretNamespace'), message: SECRET_NAMESPACE_MESSAGE });
  }
  const nanos = quantityNanos(volume.capacity);
  if (nanos === undefined || nanos > unitsToNanos(MAX_QUANTITY)) {
    problems.push({
      path: fieldPath(path, 'capacity'),
      message: `must be a quantity such as 500m, 2Gi or 4, at most ${MAX_QUANTITY}`,
    });
  } else if (nanos === 0n) {
    problems.push({ path: fieldPath(path, 'capacity'), message: 'must be more than zero, e.g. 5Gi' });
  }
  problems.push(
    ...keyProblems(fieldPath(path, 'labels'), volume.labels, true),
    ...keyProblems(fieldPath(path, 'annotations'), volume.annotations, false),
    ...keyProblems(fieldPath(path, 'claimAnnotations'), volume.claimAnnotations, false),
  );
  return problems;
}

/** The problems of the spec.volumes entries themselves. */
export function storageEntryProblems(
  volumes: Readonly<Record<string, StorageVolume>> | undefined,
): Problem[] {
  return Object.entries(volumes ?? {}).flatMap(([name, volume]) => [
    ...volumeNameProblems(indexPath('spec.volumes', name), name),
    ...entryProblems(indexPath('spec.volumes', name), volume),
  ]);
}
