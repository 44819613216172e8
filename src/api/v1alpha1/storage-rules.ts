/**
 * `spec.volumes` (storage the operator provisions) and the container volumes that mount it: a
 * hostpath entry names its directory, CSI-only fields need a driver, the capacity is more than zero,
 * and a container volume without a source names an entry, while one with a source of its own does
 * not take an entry's name (a pod volume name means one volume). The CRD's CEL rules for the same
 * checks are in storage-cel.ts.
 */
import { RESERVED_LABEL_KEYS } from '../shared/labels.ts';
import { MAX_QUANTITY } from '../shared/limits.ts';
import { fieldPath, indexPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import { QUALIFIED_NAME_MESSAGE, isQualifiedName } from '../shared/qualified-names.ts';
import { quantityNanos, unitsToNanos } from '../shared/quantity.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import type { DefaultedContainerV1alpha1, DefaultedMiniClusterV1alpha1Spec, Volume } from './schema.ts';
import { volumeNameProblems } from './volume-rules.ts';
import { HOSTPATH_STORAGE_CLASS, SECRET_NAMESPACE_MESSAGE, SOURCES } from '../shared/storage-cel.ts';

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

type StorageVolume = NonNullable<DefaultedMiniClusterV1alpha1Spec['volumes']>[string];

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

/** The pod containers that mount volumes: the brokers' containers and the services (v1alpha1 both). */
function mountingContainers(
  spec: DefaultedMiniClusterV1alpha1Spec,
): { path: string; container: Pick<DefaultedContainerV1alpha1, 'volumes' | 'existingVolumes'> }[] {
  return [
    ...spec.containers.map((container, index) => ({ path: `spec.containers[${index}]`, container })),
    ...(spec.services ?? []).map((container, index) => ({ path: `spec.services[${index}]`, container })),
  ];
}

function referenceProblems(spec: DefaultedMiniClusterV1alpha1Spec): Problem[] {
  const storage = spec.volumes ?? {};
  return mountingContainers(spec).flatMap(({ path: containerPath, container }) => {
    const problems: Problem[] = [];
    for (const [name, volume] of Object.entries(container.volumes ?? {})) {
      const path = indexPath(`${containerPath}.volumes`, name);
      const named = Object.hasOwn(storage, name);
      if (!hasOwnSource(volume) && !named) {
        problems.push({
          path,
          message: `has no source, so it names storage of spec.volumes, which has no entry ${JSON.stringify(name)}; add one to spec.volumes or set one of ${SOURCES}`,
        });
      } else if (hasOwnSource(volume) && named) {
        problems.push({
          path,
          message: `has a source of its own and the name of spec.volumes[${name}]; a pod volume name means one volume: rename one of them, or remove the source to mount spec.volumes[${name}]`,
        });
      }
    }
    for (const name of Object.keys(container.existingVolumes ?? {})) {
      if (Object.hasOwn(storage, name)) {
        problems.push({
          path: indexPath(`${containerPath}.existingVolumes`, name),
          message: `has the name of spec.volumes[${name}]; a pod volume name means one volume: rename one of them, or mount spec.volumes[${name}] from the container's volumes`,
        });
      }
    }
    return problems;
  });
}

/** The problems of the spec.volumes entries themselves (v1alpha2 shares them). */
export function storageEntryProblems(volumes: DefaultedMiniClusterV1alpha1Spec['volumes']): Problem[] {
  return Object.entries(volumes ?? {}).flatMap(([name, volume]) => [
    ...volumeNameProblems(indexPath('spec.volumes', name), name),
    ...entryProblems(indexPath('spec.volumes', name), volume),
  ]);
}

export const storageVolumes: SemanticRuleV1alpha1 = {
  name: 'spec.volumes entries are complete for their kind; container volumes without a source name one',
  check: ({ spec }) => [...storageEntryProblems(spec.volumes), ...referenceProblems(spec)],
};
