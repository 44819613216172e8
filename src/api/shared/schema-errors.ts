/**
 * Schema validation with TypeBox, translated into problems with Kubernetes-style field paths
 * (`spec.containers[0].volumes[data].path`) and messages that say what is expected.
 */
import { FormatRegistry } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import type { ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { HOSTLIST_PATTERN, TOPOLOGY_PATTERN } from './flux-fields.ts';
import { renamedFieldMessage } from './left-out-fields.ts';
import { CREDENTIAL_MIN_LENGTH, isCredentialPointer } from './restful-schema.ts';
import { CSI_DRIVER_PATTERN } from './storage-schema.ts';
import { SYSCTL_NAME_PATTERN } from './kube-schemas.ts';
import { fieldPath, indexPath } from './problems.ts';
import type { Problem } from './problems.ts';
import {
  ABSOLUTE_PATH_PATTERN,
  ADDRESS_PATTERN,
  DNS_1035_LABEL_PATTERN,
  DNS_1123_LABEL_PATTERN,
  DNS_1123_SUBDOMAIN_PATTERN,
  DURATION_PATTERN,
  HOST_PATH_PATTERN,
  IMAGE_PATTERN,
  ITEM_PATH_PATTERN,
  LABEL_VALUE_PATTERN,
  NO_NUL_PATTERN,
  QUANTITY_PATTERN,
  SECRET_KEY_PATTERN,
  RESOURCE_QUANTITY_PATTERN,
} from './schema-helpers.ts';

const RFC3339_PATTERN = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `format: date-time` as Kubernetes timestamps use it (TypeBox knows no formats by itself). */
export function isRfc3339DateTime(value: string): boolean {
  return RFC3339_PATTERN.test(value) && !Number.isNaN(Date.parse(value));
}

if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', isRfc3339DateTime);

const DNS_LABEL_RULES = 'lowercase letters, digits and "-", ending with a letter or digit';

/** What each pattern means, for people; patterns not listed are quoted as they are. */
const PATTERN_MEANINGS: Record<string, string> = {
  [DNS_1035_LABEL_PATTERN]: `must be a DNS label: ${DNS_LABEL_RULES}, starting with a letter`,
  [DNS_1123_LABEL_PATTERN]: `must be a DNS label: ${DNS_LABEL_RULES}, starting with a letter or digit`,
  [DNS_1123_SUBDOMAIN_PATTERN]: `must be a DNS subdomain: dot-separated parts of ${DNS_LABEL_RULES}`,
  [LABEL_VALUE_PATTERN]:
    'must be a label value: letters, digits, "-", "_" and ".", starting and ending with a letter or digit',
  [QUANTITY_PATTERN]: 'must be a quantity such as 500m, 2Gi or 4',
  [RESOURCE_QUANTITY_PATTERN]:
    'must be a quantity such as 500m, 2Gi or 4 (not negative; exponents of at most two digits)',
  [DURATION_PATTERN]: 'must be a duration such as 5s, 1m30s or 500ms',
  [TOPOLOGY_PATTERN]: 'must be kary:K, binomial, mincrit or mincrit:K',
  [NO_NUL_PATTERN]: 'must not contain a NUL character',
  [SECRET_KEY_PATTERN]: 'must be a Secret key: letters, digits, "-", "_" and "."',
  [ABSOLUTE_PATH_PATTERN]: 'must be an absolute path (starting with /, no NUL character)',
  [HOST_PATH_PATTERN]: 'must be an absolute path without a .. element (and no NUL character)',
  [ITEM_PATH_PATTERN]:
    'must be a relative path without a .. element, not starting with .. (and no NUL character)',
  [IMAGE_PATTERN]: 'must be an image reference: printable ASCII without spaces',
  [ADDRESS_PATTERN]: 'must be a host name or an IP address',
  [HOSTLIST_PATTERN]:
    'must be a hostlist: comma-separated hosts (printable ASCII without spaces, "[", "]" and ","), each with at most one [ids] bracket of numbers and ranges such as [0-3,7]',
  '^[a-z_][a-z0-9_-]*$':
    'must be a Linux user name: lowercase letters, digits, "_" and "-", not starting with a digit',
  '^[A-Z][A-Z0-9_]*$': 'must be a capability name in capitals, such as SYS_ADMIN',
  [CSI_DRIVER_PATTERN]:
    'must be a CSI driver name: letters, digits, "-" and ".", starting and ending with a letter or digit',
  [SYSCTL_NAME_PATTERN]:
    'must be a sysctl name: dot- or slash-separated parts of lowercase letters, digits, "-" and "_"',
};

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  return String(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (Number.isInteger(value)) return 'an integer';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

interface SchemaView {
  const?: unknown;
  anyOf?: SchemaView[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  pattern?: string;
  'x-kubernetes-int-or-string'?: boolean;
  properties?: Record<string, SchemaView>;
  patternProperties?: Record<string, SchemaView>;
  items?: SchemaView;
}

function unionMessage(schema: SchemaView, value: unknown): string {
  if (schema['x-kubernetes-int-or-string'])
    return `must be a quantity such as 500m, 2Gi or 4; got ${describeValue(value)}`;
  const literals = (schema.anyOf ?? [])
    .map((branch) => branch.const)
    .filter((literal) => literal !== undefined);
  return `must be one of: ${literals.join(', ')}; got ${describeValue(value)}`;
}

/** A message for one TypeBox error, saying what is expected (and what was found when it helps). */
function messageFor(error: ValueError): string {
  const schema = error.schema as SchemaView;
  const value = error.value;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not a field of this object; check the spelling (field names are case-sensitive) or remove it';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be >= ${schema.minimum}; got ${describeValue(value)}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be <= ${schema.maximum}; got ${describeValue(value)}`;
    case ValueErrorType.StringMinLength:
      if (isCredentialPointer(error.path))
        return `must have at least ${CREDENTIAL_MIN_LENGTH} characters (a short one can be guessed); got ${characters(String(value))}: give a longer one, or leave it out to have a random one made`;
      return schema.minLength === 1
        ? 'must not be empty'
        : `must have at least ${schema.minLength} characters`;
    case ValueErrorType.StringMaxLength:
      return `must have at most ${schema.maxLength} characters; got ${characters(String(value))}`;
    case ValueErrorType.StringPattern: {
      // A token, password or key is a secret: never repeated in a message (it reaches statuses and events).
      if (isCredentialPointer(error.path))
        return 'must be printable ASCII without spaces (HTTP headers carry it as it is); the value is not shown';
      const meaning = PATTERN_MEANINGS[schema.pattern ?? ''] ?? `must match ${schema.pattern}`;
      return `${meaning}; got ${describeValue(value)}`;
    }
    case ValueErrorType.StringFormat:
      return `must be an RFC 3339 date-time such as 2026-01-01T00:00:00Z; got ${describeValue(value)}`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${schema.minItems} item(s)`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${schema.maxItems} items; got ${Array.isArray(value) ? value.length : '?'}`;
    case ValueErrorType.ObjectMaxProperties:
      return `must have at most ${schema.maxProperties} entries`;
    case ValueErrorType.Union:
      return unionMessage(schema, value);
    case ValueErrorType.Literal:
      return `must be ${JSON.stringify(schema.const)}; got ${describeValue(value)}`;
    case ValueErrorType.Integer:
      return `must be an integer; got ${typeName(value)}${typeof value === 'number' ? ` (${value})` : ''}`;
    case ValueErrorType.String:
      return `must be a string; got ${typeName(value)}`;
    case ValueErrorType.Boolean:
      return `must be true or false; got ${typeName(value)}`;
    case ValueErrorType.Object:
      return `must be an object; got ${typeName(value)}`;
    case ValueErrorType.Array:
      return `must be a list; got ${typeName(value)}`;
    default:
      return error.message.charAt(0).toLowerCase() + error.message.slice(1);
  }
}

/** Characters as Kubernetes counts them: code points (TypeBox counts UTF-16 code units). */
function characters(text: string): number {
  return [...text].length;
}

/**
 * A maxLength error TypeBox reports for a string whose characters are within the bound (emoji
 * take two code units): the API server stores such a string, so it is no problem.
 */
function withinMaxLength(error: ValueError): boolean {
  const { maxLength } = error.schema as SchemaView;
  return (
    error.type === ValueErrorType.StringMaxLength &&
    typeof error.value === 'string' &&
    maxLength !== undefined &&
    characters(error.value) <= maxLength
  );
}

function decodePointerSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/**
 * Turns TypeBox's JSON pointer (`/spec/containers/0/image`) into a field path
 * (`spec.containers[0].image`), walking the schema to tell list indexes and map keys from fields.
 */
export function pointerToFieldPath(root: TSchema, pointer: string): string {
  const segments = pointer === '' ? [] : pointer.slice(1).split('/').map(decodePointerSegment);
  let schema: SchemaView | undefined = root as SchemaView;
  let path = '';
  for (const segment of segments) {
    if (schema?.properties) {
      path = fieldPath(path, segment);
      schema = schema.properties[segment];
    } else if (schema?.items) {
      path = indexPath(path, segment);
      schema = schema.items;
    } else if (schema?.patternProperties) {
      path = indexPath(path, segment);
      schema = Object.values(schema.patternProperties)[0];
    } else {
      path = fieldPath(path, segment);
      schema = undefined;
    }
  }
  return path;
}

/**
 * Every schema problem of `value`, one per field (the first TypeBox reports: a missing field is
 * "required", not also "must be a string").
 */
export function schemaProblems(schema: TSchema, value: unknown): Problem[] {
  // Check answers a valid value (the usual case) in a fraction of the time Errors takes to walk it.
  if (Value.Check(schema, value)) return [];
  const problems: Problem[] = [];
  const seenPaths = new Set<string>();
  for (const error of Value.Errors(schema, value)) {
    if (withinMaxLength(error)) continue;
    const path = pointerToFieldPath(schema, error.path);
    if (seenPaths.has(path)) continue;
    seenPaths.add(path);
    const renamed =
      error.type === ValueErrorType.ObjectAdditionalProperties ? renamedFieldMessage(path) : undefined;
    problems.push({ path, message: renamed ?? messageFor(error) });
  }
  return problems;
}
