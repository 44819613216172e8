/**
 * Fields of the Go Flux Operator's v1alpha1 API that this operator does not implement (two of a
 * container; every field of its spec is implemented). They are
 * declared (loosely) in the schema only so that they are refused by name with what to use instead:
 * left undeclared, the API server would prune them from a manifest sent without strict field
 * validation, and the MiniCluster would run without what it asked for.
 *
 * Also the names older Go manifests used for fields that v1alpha1 renamed: those stay undeclared
 * (the Go operator's last v1alpha1 refused them too), but the validator says what they became.
 */
import { Type } from '@sinclair/typebox';
import { PATH_MAX_LENGTH } from './limits.ts';
import { NO_NUL_PATTERN } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

export interface LeftOutField {
  /** What the field did in the Go operator's v1alpha1. */
  readonly meaning: string;
  /** What to write instead, here. */
  readonly instead: string;
}

/** Left-out fields of `spec.containers[]`, by name. */
export const LEFT_OUT_CONTAINER_FIELDS = {
  logs: {
    meaning: 'a directory the Go operator wrote the Flux logs to',
    instead:
      'the brokers log to the pod log (`kubectl logs`); to keep a copy, redirect the output in the command to a file on a mounted volume',
  },
  diagnostics: {
    meaning: 'run Flux diagnostics instead of the command',
    instead:
      'make the diagnostics the command (e.g. `command: flux overlay status`), or run them with `kubectl exec` in an interactive MiniCluster',
  },
} as const satisfies Record<string, LeftOutField>;

/** Fields of older Go operator manifests, unknown to its last v1alpha1, and what they became. */
const RENAMED_CONTAINER_FIELDS: Record<string, string> = {
  preCommand: 'commands.pre',
  fluxOptionFlags: 'spec.flux.optionFlags',
};

export function leftOutMessage(field: LeftOutField): string {
  return `is a field of the Go Flux Operator's v1alpha1 API (${field.meaning}) that this operator does not support (yet); ${field.instead}`;
}

/** The schema's description of a left-out field: accepted in shape only, to be refused below. */
function described(field: LeftOutField): { description: string } {
  return {
    description: `Not supported (a v1alpha1 field of the Go Flux Operator: ${field.meaning}); refused.`,
  };
}

/** The left-out fields of a container, as schema properties. */
export const LEFT_OUT_CONTAINER_PROPERTIES = {
  logs: Type.Optional(
    Type.String({
      ...described(LEFT_OUT_CONTAINER_FIELDS.logs),
      maxLength: PATH_MAX_LENGTH,
      pattern: NO_NUL_PATTERN,
    }),
  ),
  diagnostics: Type.Optional(Type.Boolean(described(LEFT_OUT_CONTAINER_FIELDS.diagnostics))),
};

function celRefusals(fields: Record<string, LeftOutField>, where: string): CelRule[] {
  return Object.entries(fields).map(([name, field]) => ({
    rule: `!has(self.${name})`,
    message: `${where}${name} ${leftOutMessage(field)}`,
    fieldPath: `.${name}`,
    reason: 'FieldValueForbidden',
  }));
}

/** CEL twins of `leftOutFields` (left-out-rules.ts), on a container. */
export const CONTAINER_LEFT_OUT_RULES: CelRule[] = celRefusals(LEFT_OUT_CONTAINER_FIELDS, '');

/**
 * The message for an unknown field at `path` (`spec.containers[0].preCommand`) when older Go
 * operator manifests used that name; undefined for any other unknown field.
 */
export function renamedFieldMessage(path: string): string | undefined {
  const match = /^spec\.containers\[\d+\]\.([A-Za-z]+)$/.exec(path);
  const renamed = match?.[1] === undefined ? undefined : RENAMED_CONTAINER_FIELDS[match[1]];
  return renamed === undefined
    ? undefined
    : `is not a field: older Go Flux Operator manifests used this name, its v1alpha1 API (and this operator) call it \`${renamed}\`; rename it`;
}
