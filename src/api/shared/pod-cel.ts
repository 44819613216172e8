/**
 * Tolerations, annotations and environment names: the CEL rules the CRD carries, twins of the validator's rules in pod-rules.ts. The
 * schema takes these and the rules take the schema's types, so the two halves live apart.
 */
import { ANNOTATIONS_MAX_BYTES } from './limits.ts';
import { QUALIFIED_NAME_MESSAGE, celQualifiedName } from './qualified-names.ts';
import { ENVIRONMENT_NAME_PATTERN, celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

/** Rules on a toleration. */
export const TOLERATION_RULES: CelRule[] = [
  {
    rule: `!has(self.key) || self.key == '' || ${celQualifiedName('self.key')}`,
    message: `key ${QUALIFIED_NAME_MESSAGE}`,
    fieldPath: '.key',
    reason: 'FieldValueInvalid',
  },
  {
    rule: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
    message: 'operator must be Exists when key is empty (a toleration of every taint)',
    fieldPath: '.operator',
    reason: 'FieldValueInvalid',
  },
  {
    rule: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
    message: 'value must be empty with operator Exists',
    fieldPath: '.value',
    reason: 'FieldValueInvalid',
  },
  {
    rule: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
    message: 'effect must be NoExecute when tolerationSeconds is set',
    fieldPath: '.effect',
    reason: 'FieldValueInvalid',
  },
];

/** Rules on the pod annotations. */
export const ANNOTATION_RULES: CelRule[] = [
  {
    rule: `self.map(key, bytes(key).size() + bytes(self[key]).size()).sum() <= ${ANNOTATIONS_MAX_BYTES}`,
    message: `pod annotations must have at most ${ANNOTATIONS_MAX_BYTES} bytes of keys and values together`,
    reason: 'FieldValueInvalid',
  },
];

/** Rules on a container's environment (and on its Secret-backed variables). */
export const ENVIRONMENT_RULES: CelRule[] = [
  {
    rule: `self.all(name, name.matches(${celRegex(ENVIRONMENT_NAME_PATTERN)}))`,
    message: 'environment variable names are letters, digits, "_", "-" and ".", not starting with a digit',
    reason: 'FieldValueInvalid',
  },
];

/** Rules on a container: a variable comes from a value or from a Secret, not both. */
export const SECRET_ENVIRONMENT_RULES: CelRule[] = [
  {
    rule: '!has(self.secrets) || !has(self.environment) || self.secrets.all(name, !(name in self.environment))',
    message:
      'a variable is set in both environment and secrets; keep the variable in one of environment and secrets',
    fieldPath: '.secrets',
    reason: 'FieldValueDuplicate',
  },
];
