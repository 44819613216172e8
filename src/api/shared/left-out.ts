/**
 * Fields of the Go Flux Operator's v1alpha2 API that cannot work here. They are declared so that the
 * API server does not prune them (a manifest sent without strict field validation would otherwise
 * run without what it asked for), then refused by name, saying why and what to do instead: by the
 * CEL rules below and by the validator (rules.ts).
 */
import type { CelRule } from './schema-helpers.ts';
import type { LeftOutField } from './left-out-fields.ts';

export const LEFT_OUT_FLUX_FIELDS = {
  arch: {
    meaning: 'the architecture of the binaries its entrypoint downloaded; its operator never read it',
    instead:
      'nothing is downloaded here: the Flux view is flux.container.image, so name an image built for the nodes (or a multi-architecture one) and remove arch',
  },
} as const satisfies Record<string, LeftOutField>;

export const LEFT_OUT_SECURITY_FIELDS = {
  windowsOptions: {
    meaning: 'security options of Windows containers',
    instead: 'MiniCluster pods run Flux on Linux nodes; remove windowsOptions',
  },
} as const satisfies Record<string, LeftOutField>;

export function leftOutMessageV1alpha2(field: LeftOutField): string {
  return `is a field of the Go Flux Operator's v1alpha2 API (${field.meaning}) that cannot work here; ${field.instead}`;
}

/** CEL refusals of `fields` on the object they belong to; `where` prefixes the field in the message. */
export function celLeftOut(fields: Record<string, LeftOutField>, where = ''): CelRule[] {
  return Object.entries(fields).map(([name, field]) => ({
    rule: `!has(self.${name})`,
    message: `${where}${name} ${leftOutMessageV1alpha2(field)}`,
    fieldPath: `.${name}`,
    reason: 'FieldValueForbidden',
  }));
}
