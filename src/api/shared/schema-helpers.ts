/**
 * Building blocks for the MiniCluster schema: patterns Kubernetes uses for names and quantities,
 * typed CEL rules, and the type-level marker that lets one schema yield both the input type (fields
 * with defaults are optional) and the defaulted type (those fields are always present).
 */
import { CloneType, Type } from '@sinclair/typebox';
import type {
  Static,
  TArray,
  TInteger,
  TLiteral,
  TObject,
  TOptional,
  TProperties,
  TRecord,
  TSchema,
  TString,
  TUnion,
} from '@sinclair/typebox';
import {
  DNS_LABEL_MAX_LENGTH,
  DNS_SUBDOMAIN_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
  MAX_MAP_ENTRIES,
  MAX_QUANTITY,
  PATH_MAX_LENGTH,
  QUANTITY_MAX_LENGTH,
  SHORT_STRING_MAX_LENGTH,
} from './limits.ts';

// Patterns are anchored and use only what both JavaScript RegExp and Go's RE2 (the API server's
// OpenAPI validation) understand: no lookaround, no backreferences.

/** RFC 1035 label: starts with a letter. Flux host names and Service names must be such labels. */
export const DNS_1035_LABEL_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
/** RFC 1123 label: may start with a digit. Container names. */
export const DNS_1123_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
/** RFC 1123 subdomain: dot-separated labels. Secret, ConfigMap, PVC, ServiceAccount names. */
export const DNS_1123_SUBDOMAIN_PATTERN =
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** A label value: empty, or alphanumerics with `-_.` inside. */
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
/**
 * A qualified name (label or annotation key): optional DNS subdomain prefix and a name of at most 63
 * characters. The prefix's own bound (253) is a separate check (see qualified-names.ts).
 */
export const QUALIFIED_NAME_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';
/** A Kubernetes resource quantity (`500m`, `2Gi`, `1e3`), the pattern controller-gen emits. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
/**
 * A quantity the pod takes: no sign (Kubernetes refuses negative resources and sizes) and a whole
 * exponent of at most two digits, which Kubernetes and quantity.ts read the same way.
 */
export const RESOURCE_QUANTITY_PATTERN =
  '^\\+?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][-+]?[0-9]{1,2}))?$';
/**
 * Text with no NUL character: a shell word, an exec argument or a file cannot hold one, and the API
 * server would store it.
 */
export const NO_NUL_PATTERN = '^[^\\x00]*$';
/** An absolute path without NUL characters. */
export const ABSOLUTE_PATH_PATTERN = '^/[^\\x00]*$';
/** One element of a path that is not `..` (and holds no `/` or NUL); may be empty (`a//b`). */
const PATH_ELEMENT = '([^/.\\x00][^/\\x00]*|\\.([^/.\\x00][^/\\x00]*)?|\\.\\.[^/\\x00]+)?';
/**
 * An absolute path with no `..` element: what Kubernetes takes as a hostPath (no backsteps).
 */
export const HOST_PATH_PATTERN = `^(/${PATH_ELEMENT})+$`;
/**
 * A relative path inside a volume (configMap or secret items): not absolute, no `..` element and not
 * starting with `..`, as Kubernetes requires of `items[].path`.
 */
export const ITEM_PATH_PATTERN = `^([^/.\\x00][^/\\x00]*|\\.([^/.\\x00][^/\\x00]*)?)(/${PATH_ELEMENT})*$`;
/**
 * An environment variable name as every Kubernetes version takes it (1.34 relaxed the rule to any
 * printable ASCII but `=`; older servers refuse more).
 */
export const ENVIRONMENT_NAME_PATTERN = '^[-._a-zA-Z][-._a-zA-Z0-9]*$';
/** A Secret (or ConfigMap) data key, as Kubernetes takes it. */
export const SECRET_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';
/** An image reference: printable ASCII without spaces (Kubernetes refuses surrounding whitespace). */
export const IMAGE_PATTERN = '^[!-~]+$';
/** A host name or an IP address (v4 or v6) a ZeroMQ endpoint can name. */
export const ADDRESS_PATTERN =
  '^(([A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)(\\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*|[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)$';
/** A Go duration as Flux's `tbon.connect_timeout` takes it: `5s`, `1m30s`, `500ms`. */
export const DURATION_PATTERN = '^([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+$';

/** One `x-kubernetes-validations` entry: a CEL rule the API server checks. */
export interface CelRule {
  /** CEL expression; `self` is the node the rule is attached to. */
  rule: string;
  /** Shown to the user when the rule fails: names the field and the fix. */
  message: string;
  /** JSON path (from the node) of the field the error is reported on. */
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

/**
 * A CEL string literal holding `pattern` (a JavaScript RegExp source) for `matches()`, which reads
 * it as RE2: backslashes and quotes escaped for CEL, and `\uXXXX` (which RE2 lacks) as `\x{XXXX}`.
 * The patterns otherwise use what both engines read alike.
 */
export function celRegex(pattern: string): string {
  const re2 = pattern.replace(/\\u([0-9a-fA-F]{4})/g, '\\x{$1}');
  return `'${re2.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** Schema options attaching CEL rules to a node: `Type.Object({...}, { ...celRules(...) })`. */
export function celRules(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}

// ---------------------------------------------------------------------------------------------
// Defaulted fields. `withDefault` and `derivedDefault` mark a property optional for input and
// required in `Defaulted<T>`. The marker exists only in the type system; at run time the schema is
// an ordinary optional property (with a JSON Schema `default` for `withDefault`).

declare const DefaultedMarker: unique symbol;

/** An optional property that `applyDefaultsV1alpha1` always fills. `Inner` is the schema without the marker. */
export type TDefaulted<Inner extends TSchema> = TOptional<Inner> & { readonly [DefaultedMarker]: Inner };

/** Optional on input; the API server (and `applyDefaultsV1alpha1`) fill in `value` when absent. */
export function withDefault<T extends TSchema>(schema: T, value: Static<T>): TDefaulted<T> {
  return Type.Optional(CloneType(schema, { default: value })) as TDefaulted<T>;
}

/**
 * Optional on input; `applyDefaultsV1alpha1` computes the value from other fields (e.g. `maxSize` from
 * `size`), which a static schema default cannot express.
 */
export function derivedDefault<T extends TSchema>(schema: T): TDefaulted<T> {
  return Type.Optional(schema) as TDefaulted<T>;
}

/** The schema type with every defaulted property turned required, recursively. */
export type TDefaultedSchema<T extends TSchema> = T extends {
  readonly [DefaultedMarker]: infer Inner extends TSchema;
}
  ? TDefaultedSchema<Inner>
  : T extends TOptional<infer Inner extends TSchema>
    ? TOptional<TDefaultedSchema<Inner>>
    : T extends TObject<infer Properties extends TProperties>
      ? TObject<{ [Key in keyof Properties]: TDefaultedSchema<Properties[Key]> }>
      : T extends TArray<infer Item extends TSchema>
        ? TArray<TDefaultedSchema<Item>>
        : T extends TRecord<infer Key extends TSchema, infer Value extends TSchema>
          ? TRecord<Key, TDefaultedSchema<Value>>
          : T;

/** The static type of a value after `applyDefaultsV1alpha1`. */
export type Defaulted<T extends TSchema> = Static<TDefaultedSchema<T>>;

// ---------------------------------------------------------------------------------------------
// Reusable field schemas.

export function dns1035Label(description: string): TString {
  return Type.String({
    description,
    minLength: 1,
    maxLength: DNS_LABEL_MAX_LENGTH,
    pattern: DNS_1035_LABEL_PATTERN,
  });
}

export function dns1123Label(description: string): TString {
  return Type.String({
    description,
    minLength: 1,
    maxLength: DNS_LABEL_MAX_LENGTH,
    pattern: DNS_1123_LABEL_PATTERN,
  });
}

/** The name of a Secret, ConfigMap, PVC or ServiceAccount. */
export function objectName(description: string): TString {
  return Type.String({
    description,
    minLength: 1,
    maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
    pattern: DNS_1123_SUBDOMAIN_PATTERN,
  });
}

/** A container image reference (IMAGE_PATTERN). */
export function imageReference(description: string): TString {
  return Type.String({
    description,
    minLength: 1,
    maxLength: SHORT_STRING_MAX_LENGTH,
    pattern: IMAGE_PATTERN,
  });
}

export function absolutePath(description: string): TString {
  return Type.String({
    description,
    minLength: 1,
    maxLength: PATH_MAX_LENGTH,
    pattern: ABSOLUTE_PATH_PATTERN,
  });
}

/**
 * Free text that reaches a script, a file or a command line (shell snippets, options, documents):
 * bounded, and without NUL characters.
 */
export function boundedString(description: string, maxLength: number): TString {
  return Type.String({ description, maxLength, pattern: NO_NUL_PATTERN });
}

/** A map of strings: `additionalProperties: {type: string}` in the CRD. */
export function stringMap(
  description: string,
  value: { minLength?: number; maxLength: number; pattern?: string },
  ...rules: CelRule[]
): TRecord<TString, TString> {
  return Type.Record(Type.String(), Type.String(value), {
    description,
    maxProperties: MAX_MAP_ENTRIES,
    ...(rules.length > 0 ? celRules(...rules) : {}),
  });
}

/** A map of label values; CEL `rules` (and semantic validation) check the keys. */
export function labelMap(description: string, ...rules: CelRule[]): TRecord<TString, TString> {
  return stringMap(
    description,
    { maxLength: LABEL_VALUE_MAX_LENGTH, pattern: LABEL_VALUE_PATTERN },
    ...rules,
  );
}

/** The schema of a Kubernetes quantity (integer or string). */
export type TQuantity = TUnion<[TInteger, TString]>;

/** CEL: the quantity `self` (an int-or-string node) is one Kubernetes reads, and not too large. */
export const CEL_QUANTITY_IN_RANGE = `isQuantity(string(self)) && quantity(string(self)).compareTo(quantity('${MAX_QUANTITY}')) <= 0`;

/**
 * A Kubernetes quantity: an integer or a string such as `500m` or `2Gi`, not negative and at most
 * MAX_QUANTITY. In the CRD it becomes the structural `x-kubernetes-int-or-string` form (see crd.ts).
 */
export function quantity(description: string): TQuantity {
  return Type.Union(
    [
      Type.Integer({ minimum: 0, maximum: MAX_QUANTITY }),
      Type.String({ maxLength: QUANTITY_MAX_LENGTH, pattern: RESOURCE_QUANTITY_PATTERN }),
    ],
    {
      description,
      'x-kubernetes-int-or-string': true,
      ...celRules({
        rule: CEL_QUANTITY_IN_RANGE,
        message: `must be a quantity such as 500m, 2Gi or 4, at most ${MAX_QUANTITY}`,
        reason: 'FieldValueInvalid',
      }),
    },
  );
}

/** Resource name (`cpu`, `memory`, `nvidia.com/gpu`) to quantity; CEL `rules` check names and values. */
export function quantityMap(description: string, ...rules: CelRule[]): TRecord<TString, TQuantity> {
  return Type.Record(Type.String(), quantity('A quantity such as 500m, 2Gi or 4.'), {
    description,
    maxProperties: MAX_MAP_ENTRIES,
    ...(rules.length > 0 ? celRules(...rules) : {}),
  });
}

/** The schema of a closed set of strings. */
export type TStringEnum<Values extends string[]> = TUnion<{
  [Index in keyof Values]: TLiteral<Values[Index]>;
}>;

/** A closed set of strings. TypeBox checks the union; the CRD gets `type: string` with `enum`. */
export function stringEnum<const Values extends [string, ...string[]]>(
  values: Values,
  description: string,
): TStringEnum<Values> {
  const literals = values.map((value) => Type.Literal(value));
  return Type.Union(literals, { description }) as unknown as TStringEnum<Values>;
}
