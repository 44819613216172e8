/**
 * v1alpha2 volumes: the CEL rules across volumes (a container's mount paths, one source per pod
 * volume name, the operator's own paths, spec.volumes names), twins of volume-rules.ts. The rules of
 * one volume are on its schema (volume-schema.ts).
 */
import { celRunsFlux } from './shared/rule-helpers.ts';
import type { CelRule } from './shared/schema-helpers.ts';
import {
  CEL_OPERATOR_PATHS,
  OPERATOR_MOUNT_PATHS,
  VOLUME_SOURCE_FIELDS,
  celSameSource,
} from './shared/volume-cel.ts';
import type { VolumeSourceFields } from './shared/volume-cel.ts';
import { DEFAULT_EMPTY_DIR_PATH, DEFAULT_FLUX_VIEW_MOUNT_PATH } from './go-defaults.ts';

/** CEL: where the volume `volume` is mounted (an emptyDir without a path: /dev/shm). */
export function celMountPath(volume: string): string {
  return `(has(${volume}.path) ? ${volume}.path : '${DEFAULT_EMPTY_DIR_PATH}')`;
}

/** CEL: the volume `volume` has a source of its own (without one it names spec.volumes or is scratch). */
export function celHasOwnSource(volume: string): string {
  return `(has(${volume}.configMapName) || has(${volume}.secretName) || has(${volume}.claimName) || has(${volume}.hostPath) || has(${volume}.csiDriver) || (has(${volume}.emptyDir) && ${volume}.emptyDir))`;
}

/** What makes a v1alpha2 volume's source, as written (volume-rules.ts sourceKey): v1alpha1's and the CSI fields. */
const SOURCE_FIELDS: VolumeSourceFields = {
  strings: [...VOLUME_SOURCE_FIELDS.strings, 'csiDriver'],
  compared: [...VOLUME_SOURCE_FIELDS.compared, 'csiDriverAttributes'],
};

export const PATHS_MESSAGE =
  'two volumes of the container have the same path (an emptyDir without one is at /dev/shm); mount paths in a container must be unique';

/** On a container (or a service). */
export const CONTAINER_VOLUME_PATH_RULE: CelRule = {
  rule: `!has(self.volumes) || self.volumes.all(name, !self.volumes.exists(other, other != name && ${celMountPath('self.volumes[other]')} == ${celMountPath('self.volumes[name]')}))`,
  message: PATHS_MESSAGE,
  fieldPath: '.volumes',
  reason: 'FieldValueDuplicate',
};

export function agreementMessage(list: 'containers' | 'services'): string {
  return `a volume name has different sources in different ${list}; a pod volume name means one source, so rename one of them`;
}

function agreementRule(list: 'containers' | 'services'): CelRule {
  const self = `self.${list}`;
  const guard = list === 'containers' ? '' : '!has(self.services) || ';
  return {
    rule: `${guard}${self}.all(first, ${self}.all(second, !has(first.volumes) || !has(second.volumes) || first.volumes.all(name, !(name in second.volumes) || (${celSameSource('first.volumes[name]', 'second.volumes[name]', SOURCE_FIELDS)}))))`,
    message: agreementMessage(list),
    fieldPath: `.${list}`,
    reason: 'FieldValueInvalid',
  };
}

export const STORAGE_NAME_MESSAGE =
  'a volume with a source of its own has the name of a spec.volumes entry; a pod volume name means one volume: rename one of them, or remove the source to mount the spec.volumes entry';

function storageNameRule(list: 'containers' | 'services'): CelRule {
  const all =
    list === 'containers'
      ? 'self.containers.all(container, '
      : '!has(self.services) || self.services.all(container, ';
  return {
    rule: `!has(self.volumes) || ${all}!has(container.volumes) || container.volumes.all(name, !(name in self.volumes) || !${celHasOwnSource('container.volumes[name]')}))`,
    message: `${list}: ${STORAGE_NAME_MESSAGE}`,
    fieldPath: `.${list}`,
    reason: 'FieldValueDuplicate',
  };
}

/** CEL: the Flux view's mount path, defaulted. */
export const CEL_VIEW_MOUNT_PATH = `(has(self.flux) && has(self.flux.container) && has(self.flux.container.mountPath) ? self.flux.container.mountPath : '${DEFAULT_FLUX_VIEW_MOUNT_PATH}')`;

export const OPERATOR_PATH_MESSAGE = `the Flux container mounts a volume where the operator mounts its own files (${OPERATOR_MOUNT_PATHS.join(', ')}) or the Flux view (flux.container.mountPath); choose another path`;

/** On the spec. */
export const SPEC_VOLUME_RULES: CelRule[] = [
  agreementRule('containers'),
  agreementRule('services'),
  storageNameRule('containers'),
  storageNameRule('services'),
  {
    rule: `self.containers.all(container, !${celRunsFlux('self', 'container')} || !has(container.volumes) || !container.volumes.exists(name, ${celMountPath('container.volumes[name]')} in ${CEL_OPERATOR_PATHS} || ${celMountPath('container.volumes[name]')} == ${CEL_VIEW_MOUNT_PATH}))`,
    message: OPERATOR_PATH_MESSAGE,
    fieldPath: '.containers',
    reason: 'FieldValueForbidden',
  },
];
