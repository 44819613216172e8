/**
 * What both versions build `spec.services[]` from: service containers, run in a pod of their own on
 * the MiniCluster's network (src/render/services.ts). They are plain containers: the fields of a
 * container that only mean something to Flux are declared loosely, so that they are refused by
 * name (a v1alpha1 manifest may carry them) instead of being dropped or called unknown.
 */
import { Type } from '@sinclair/typebox';
import { SHORT_STRING_MAX_LENGTH } from './limits.ts';
import { NO_NUL_PATTERN } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

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
