/**
 * Storage volumes: the CEL rules the CRD carries, twins of the validator's rules in storage-rules.ts. The
 * schema takes these and the rules take the schema's types, so the two halves live apart.
 */
import type { CelRule } from './schema-helpers.ts';

/** The storage class that means "a directory of the node" (a hostPath PersistentVolume), as in v1alpha1. */
export const HOSTPATH_STORAGE_CLASS = 'hostpath';
export const DEFAULT_CAPACITY = '5Gi';

export const SOURCES = 'configMapName, secretName, claimName, hostPath or emptyDir: true';

export const SECRET_NAMESPACE_MESSAGE =
  "is a field of the Go Flux Operator's v1alpha1 API (the namespace of the CSI driver's Secret) that this operator does not support: a MiniCluster may not point a driver at another namespace's Secret; create the Secret in the MiniCluster's namespace and remove secretNamespace";

// ---------------------------------------------------------------------------------------------
// The same checks in CEL.

const CEL_STORAGE_CLASS = `(has(self.storageClass) ? self.storageClass : '${HOSTPATH_STORAGE_CLASS}')`;

/** Rules on one `spec.volumes` entry. */
export const STORAGE_VOLUME_RULES: CelRule[] = [
  {
    rule: `${CEL_STORAGE_CLASS} != '${HOSTPATH_STORAGE_CLASS}' || has(self.path)`,
    message:
      'a hostpath volume needs path: the directory of the node it is; set it, or set another storageClass',
    fieldPath: '.path',
    reason: 'FieldValueRequired',
  },
  {
    rule: `${CEL_STORAGE_CLASS} != '${HOSTPATH_STORAGE_CLASS}' || !has(self.driver)`,
    message:
      'driver is for CSI volumes, and a hostpath volume is a directory of the node; remove driver or set the storageClass of the driver',
    fieldPath: '.driver',
    reason: 'FieldValueForbidden',
  },
  {
    rule: 'has(self.driver) || (!has(self.volumeHandle) && !has(self.attributes) && !has(self.secret))',
    message: 'volumeHandle, attributes and secret apply to CSI volumes only; set driver or remove them',
    reason: 'FieldValueForbidden',
  },
  {
    rule: '!has(self.secretNamespace)',
    message: `secretNamespace ${SECRET_NAMESPACE_MESSAGE}`,
    fieldPath: '.secretNamespace',
    reason: 'FieldValueForbidden',
  },
  {
    rule: "!has(self.capacity) || !isQuantity(string(self.capacity)) || quantity(string(self.capacity)).isGreaterThan(quantity('0'))",
    message: 'capacity must be more than zero, e.g. 5Gi',
    fieldPath: '.capacity',
    reason: 'FieldValueInvalid',
  },
];

/** CEL: the container volume `volume` has a source of its own (hasOwnSource). */
export function celHasOwnSource(volume: string): string {
  return `(has(${volume}.configMapName) || has(${volume}.secretName) || has(${volume}.claimName) || has(${volume}.hostPath) || (has(${volume}.emptyDir) && ${volume}.emptyDir))`;
}

/** The CEL rules below for one list of containers (`containers`, or the optional `services`). */
function referenceRules(list: 'containers' | 'services', what: string): CelRule[] {
  const all = (check: string): string =>
    list === 'containers'
      ? `self.containers.all(container, ${check})`
      : `!has(self.services) || self.services.all(container, ${check})`;
  return [
    {
      rule: all(
        `!has(container.volumes) || container.volumes.all(name, ${celHasOwnSource('container.volumes[name]')} || (has(self.volumes) && name in self.volumes))`,
      ),
      message: `a ${what} volume without a source (${SOURCES}) names storage of spec.volumes, and spec.volumes has no entry of that name; add one to spec.volumes or give the ${what} volume a source`,
      fieldPath: `.${list}`,
      reason: 'FieldValueInvalid',
    },
    {
      rule: `!has(self.volumes) || ${all(`(!has(container.volumes) || container.volumes.all(name, !(name in self.volumes) || !${celHasOwnSource('container.volumes[name]')})) && (!has(container.existingVolumes) || container.existingVolumes.all(name, !(name in self.volumes)))`)}`,
      message: `a ${what} volume with a source of its own (or in existingVolumes) has the name of a spec.volumes entry; a pod volume name means one volume: rename one of them, or remove the source to mount the spec.volumes entry`,
      fieldPath: `.${list}`,
      reason: 'FieldValueDuplicate',
    },
  ];
}

/** Rules on the spec: each container (or service) volume is either a source of its own or the name of an entry. */
export const SPEC_STORAGE_RULES: CelRule[] = [
  ...referenceRules('containers', 'container'),
  ...referenceRules('services', 'service'),
];

/** On a container or a service: an existingVolumes entry has a source of its own. */
export const EXISTING_VOLUME_SOURCE_RULE: CelRule = {
  rule: `!has(self.existingVolumes) || self.existingVolumes.all(name, ${celHasOwnSource('self.existingVolumes[name]')})`,
  message:
    'an existingVolumes entry needs a source: set one of configMapName, secretName, claimName, hostPath or emptyDir: true (storage of spec.volumes is mounted from volumes)',
  fieldPath: '.existingVolumes',
  reason: 'FieldValueRequired',
};
