/**
 * Qualified names: label keys, annotation keys, node selector keys and toleration keys, as
 * Kubernetes checks them (an optional DNS subdomain prefix of at most 253 characters and `/`, then a
 * name of at most 63). The same check twice: for the validator, and as CEL for the CRD.
 */
import { RESERVED_LABEL_KEYS } from './labels.ts';
import { DNS_SUBDOMAIN_MAX_LENGTH } from './limits.ts';
import { QUALIFIED_NAME_PATTERN, celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

const qualifiedName = new RegExp(QUALIFIED_NAME_PATTERN);

/** The pattern bounds the name; the prefix (everything before the `/`) has a bound of its own. */
export function isQualifiedName(key: string): boolean {
  return qualifiedName.test(key) && key.indexOf('/') <= DNS_SUBDOMAIN_MAX_LENGTH;
}

/** CEL: the string `expression` is a qualified name (the same two checks). */
export function celQualifiedName(expression: string): string {
  return `(${expression}.matches(${celRegex(QUALIFIED_NAME_PATTERN)}) && ${expression}.indexOf('/') <= ${DNS_SUBDOMAIN_MAX_LENGTH})`;
}

export const QUALIFIED_NAME_MESSAGE =
  'must be a label key: an optional DNS subdomain prefix and "/", then a name of at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit';

/** The CEL rule of a map (`what`, its field path) whose keys are label (or annotation) keys. */
export function celLabelKeys(what: string): CelRule {
  return {
    rule: `self.all(key, ${celQualifiedName('key')})`,
    message: `${what}: every key ${QUALIFIED_NAME_MESSAGE}`,
    reason: 'FieldValueInvalid',
  };
}

/** The CEL rule of a label map that must not set the operator's own label keys. */
export function celNoReservedLabelKeys(what: string): CelRule {
  const reserved = RESERVED_LABEL_KEYS.map((key) => `'${key}'`).join(', ');
  return {
    rule: `self.all(key, !(key in [${reserved}]))`,
    message: `${what} must not set the operator's own label keys (${RESERVED_LABEL_KEYS.join(', ')}); its selectors rely on them`,
    reason: 'FieldValueForbidden',
  };
}
