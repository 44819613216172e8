/**
 * Fields passed through to the pod, checked as Kubernetes checks them so that a MiniCluster the API
 * server stores renders a Job it accepts: tolerations, the size of the pod annotations, environment
 * variable names (values and Secret keys). (Label keys, resources and volumes have rules of their
 * own.) The CRD's CEL rules for the same checks are in pod-cel.ts.
 */
import { ANNOTATIONS_MAX_BYTES } from '../shared/limits.ts';
import { indexPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import { QUALIFIED_NAME_MESSAGE, isQualifiedName } from '../shared/qualified-names.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import { ENVIRONMENT_NAME_PATTERN } from '../shared/schema-helpers.ts';

const environmentName = new RegExp(ENVIRONMENT_NAME_PATTERN);
const utf8 = new TextEncoder();

export const tolerations: SemanticRuleV1alpha1 = {
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

function annotationBytes(annotations: Readonly<Record<string, string>>): number {
  return Object.entries(annotations).reduce(
    (total, [key, value]) => total + utf8.encode(key).length + utf8.encode(value).length,
    0,
  );
}

export const annotationSize: SemanticRuleV1alpha1 = {
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

const ENVIRONMENT_NAME_MESSAGE =
  'must be an environment variable name: letters, digits, "_", "-" and ".", not starting with a digit';

export const environmentNames: SemanticRuleV1alpha1 = {
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
