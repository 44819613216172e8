/**
 * Fields passed through to the pod, checked as Kubernetes checks them so that a MiniCluster the API
 * server stores renders a Job it accepts: tolerations, the size of the pod annotations, environment
 * variable names (values and Secret keys). (Label keys, resources and volumes have rules of their own.) The validator's rules
 * and the CRD's CEL rules for the same checks sit side by side.
 */
import { ANNOTATIONS_MAX_BYTES } from './limits.ts';
import { indexPath } from './problems.ts';
import type { Problem } from './problems.ts';
import { QUALIFIED_NAME_MESSAGE, celQualifiedName, isQualifiedName } from './qualified-names.ts';
import type { SemanticRule } from './rule-helpers.ts';
import { ENVIRONMENT_NAME_PATTERN, celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

const environmentName = new RegExp(ENVIRONMENT_NAME_PATTERN);
const utf8 = new TextEncoder();

export const tolerations: SemanticRule = {
  name: 'tolerations are what Kubernetes takes: qualified keys, Exists for every key, NoExecute with seconds',
  check: ({ spec }) =>
    (spec.pod?.tolerations ?? []).flatMap((toleration, index) => {
      const path = `spec.pod.tolerations[${index}]`;
      const problems: Problem[] = [];
      const key = toleration.key ?? '';
      if (key !== '' && !isQualifiedName(key)) {
        problems.push({
          path: `${path}.key`,
          message: `${QUALIFIED_NAME_MESSAGE}; got ${JSON.stringify(key)}`,
        });
      }
      if (key === '' && toleration.operator !== 'Exists') {
        problems.push({
          path: `${path}.operator`,
          message: 'must be Exists when key is empty (a toleration of every taint)',
        });
      }
      if (toleration.operator === 'Exists' && (toleration.value ?? '') !== '') {
        problems.push({ path: `${path}.value`, message: 'must be empty with operator Exists' });
      }
      if (toleration.tolerationSeconds !== undefined && toleration.effect !== 'NoExecute') {
        problems.push({ path: `${path}.effect`, message: 'must be NoExecute when tolerationSeconds is set' });
      }
      return problems;
    }),
};

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

function annotationBytes(annotations: Readonly<Record<string, string>>): number {
  return Object.entries(annotations).reduce(
    (total, [key, value]) => total + utf8.encode(key).length + utf8.encode(value).length,
    0,
  );
}

export const annotationSize: SemanticRule = {
  name: 'pod annotations fit in what Kubernetes takes',
  check: ({ spec }) => {
    const bytes = annotationBytes(spec.pod?.annotations ?? {});
    return bytes > ANNOTATIONS_MAX_BYTES
      ? [
          {
            path: 'spec.pod.annotations',
            message: `must have at most ${ANNOTATIONS_MAX_BYTES} bytes of keys and values together; got ${bytes}`,
          },
        ]
      : [];
  },
};

/** Rules on the pod annotations. */
export const ANNOTATION_RULES: CelRule[] = [
  {
    rule: `self.map(key, bytes(key).size() + bytes(self[key]).size()).sum() <= ${ANNOTATIONS_MAX_BYTES}`,
    message: `pod annotations must have at most ${ANNOTATIONS_MAX_BYTES} bytes of keys and values together`,
    reason: 'FieldValueInvalid',
  },
];

const ENVIRONMENT_NAME_MESSAGE =
  'must be an environment variable name: letters, digits, "_", "-" and ".", not starting with a digit';

export const environmentNames: SemanticRule = {
  name: 'environment variable names (values and Secret keys) are what every Kubernetes takes, each set once',
  check: ({ spec }) =>
    spec.containers.flatMap((container, index) => {
      const path = `spec.containers[${index}]`;
      const badNames = (field: 'environment' | 'secrets') =>
        Object.keys(container[field] ?? {})
          .filter((name) => !environmentName.test(name))
          .map((name) => ({ path: indexPath(`${path}.${field}`, name), message: ENVIRONMENT_NAME_MESSAGE }));
      // Kubernetes keeps the last of two same-named variables: one of them would be dropped unseen.
      const twice = Object.keys(container.secrets ?? {})
        .filter((name) => container.environment?.[name] !== undefined)
        .map((name) => ({
          path: indexPath(`${path}.secrets`, name),
          message: 'is also set in environment; keep the variable in one of environment and secrets',
        }));
      return [...badNames('environment'), ...badNames('secrets'), ...twice];
    }),
};

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
