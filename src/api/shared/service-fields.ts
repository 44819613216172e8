/**
 * Schema of `spec.services[]`: v1alpha1's service containers, run in a pod of their own on the
 * MiniCluster's network (src/render/services.ts). They are plain containers: the fields of a
 * container that only mean something to Flux are declared loosely, so that they are refused by
 * name (a v1alpha1 manifest may carry them) instead of being dropped or called unknown.
 */
import { Type } from '@sinclair/typebox';
import { MAX_PORTS_PER_CONTAINER, SCRIPT_MAX_LENGTH, SHORT_STRING_MAX_LENGTH } from './limits.ts';
import {
  ENVIRONMENT_PROPERTIES,
  IMAGE_PULL_PROPERTIES,
  LifeCycleSchema,
  ResourcesSchema,
  SecurityContextSchema,
  volumeMap,
} from './container-fields.ts';
import { SECRET_ENVIRONMENT_RULES } from './pod-cel.ts';
import { NO_NUL_PATTERN, boundedString, celRules, dns1123Label, imageReference } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import { EXISTING_VOLUME_SOURCE_RULE } from './storage-cel.ts';
import { CONTAINER_VOLUME_RULES } from './volume-cel.ts';

/** Fields of a container that only the Flux container uses, in v1alpha1 and v1alpha2 alike. */
export const FLUX_ONLY_FIELDS = [
  'runFlux',
  'fluxUser',
  'cores',
  'launcher',
  'batch',
  'batchRaw',
  'commands',
  'logs',
] as const;

/** Fields of a MiniCluster container that only the Flux container uses; a service has none. */
export const FLUX_ONLY_SERVICE_FIELDS = [...FLUX_ONLY_FIELDS, 'diagnostics'] as const;

export function fluxOnlyServiceMessage(field: string): string {
  return `is a field of the Flux container: a service container runs its image (or its command) without Flux; remove ${field}`;
}

const REFUSED = { description: 'Refused: a Flux container field; services run without Flux.' };

/** A refused boolean field of a service: `false` says nothing and is accepted (a Go operator's defaults wrote it). */
export function refusedBoolean() {
  return Type.Optional(Type.Boolean(REFUSED));
}

/** FLUX_ONLY_FIELDS as a service declares them: loosely, so that each is refused by name. */
export const REFUSED_FLUX_PROPERTIES = {
  runFlux: refusedBoolean(),
  fluxUser: Type.Optional(Type.Object({}, { ...REFUSED, 'x-kubernetes-preserve-unknown-fields': true })),
  cores: Type.Optional(Type.Integer({ ...REFUSED, minimum: 0, maximum: 65536 })),
  launcher: refusedBoolean(),
  batch: refusedBoolean(),
  batchRaw: refusedBoolean(),
  commands: Type.Optional(Type.Object({}, { ...REFUSED, 'x-kubernetes-preserve-unknown-fields': true })),
  logs: Type.Optional(
    Type.String({ ...REFUSED, maxLength: SHORT_STRING_MAX_LENGTH, pattern: NO_NUL_PATTERN }),
  ),
};

/** Booleans among FLUX_ONLY_FIELDS. */
const FLUX_ONLY_BOOLEANS: readonly string[] = ['runFlux', 'launcher', 'batch', 'batchRaw'];

/**
 * The rules of a service refusing `fields` (FLUX_ONLY_FIELDS and the version's own), by name; a boolean
 * (FLUX_ONLY_BOOLEANS or one of `booleans`) may be false.
 */
export function fluxOnlyServiceRules(fields: readonly string[], booleans: readonly string[]): CelRule[] {
  return fields.map((field): CelRule => ({
    rule:
      FLUX_ONLY_BOOLEANS.includes(field) || booleans.includes(field)
        ? `!has(self.${field}) || !self.${field}`
        : `!has(self.${field})`,
    message: `${field} ${fluxOnlyServiceMessage(field)}`,
    fieldPath: `.${field}`,
    reason: 'FieldValueForbidden',
  }));
}

export const ServiceContainerV1alpha1Schema = Type.Object(
  {
    name: dns1123Label('Container name, unique among the services.'),
    image: imageReference('Container image of the service.'),
    command: Type.Optional(
      boundedString(
        "Shell command the service runs (`/bin/sh -c`). Unset: the image's own entrypoint, as in v1alpha1.",
        SCRIPT_MAX_LENGTH,
      ),
    ),
    ...ENVIRONMENT_PROPERTIES,
    ports: Type.Optional(
      Type.Array(Type.Integer({ description: 'A TCP port.', minimum: 1, maximum: 65535 }), {
        description: 'Container ports the service listens on (documentation; any port is reachable).',
        maxItems: MAX_PORTS_PER_CONTAINER,
        'x-kubernetes-list-type': 'set',
      }),
    ),
    resources: Type.Optional(ResourcesSchema),
    ...IMAGE_PULL_PROPERTIES,
    volumes: Type.Optional(volumeMap('Volumes to mount, by volume name (a DNS label).')),
    existingVolumes: Type.Optional(
      volumeMap('Same as volumes; kept so Flux Operator v1alpha1 manifests apply unchanged.'),
    ),
    lifeCycle: Type.Optional(LifeCycleSchema),
    securityContext: Type.Optional(SecurityContextSchema),
    ...REFUSED_FLUX_PROPERTIES,
    diagnostics: refusedBoolean(),
  },
  {
    description:
      "A service container (v1alpha1): runs in the MiniCluster's services pod, reachable by name from the brokers and their jobs.",
    additionalProperties: false,
    ...celRules(
      ...SECRET_ENVIRONMENT_RULES,
      ...CONTAINER_VOLUME_RULES,
      EXISTING_VOLUME_SOURCE_RULE,
      ...fluxOnlyServiceRules(FLUX_ONLY_SERVICE_FIELDS, ['diagnostics']),
    ),
  },
);
