/**
 * The validator's rule refusing the v1alpha1 fields this operator leaves out; its CEL twin is
 * CONTAINER_LEFT_OUT_RULES (left-out-fields.ts).
 */
import { fieldPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import { LEFT_OUT_CONTAINER_FIELDS, leftOutMessage } from '../shared/left-out-fields.ts';
import type { LeftOutField } from '../shared/left-out-fields.ts';

function refusals(path: string, given: object, fields: Record<string, LeftOutField>): Problem[] {
  return Object.entries(fields)
    .filter(([name]) => name in given)
    .map(([name, field]) => ({ path: fieldPath(path, name), message: leftOutMessage(field) }));
}

export const leftOutFields: SemanticRuleV1alpha1 = {
  name: 'v1alpha1 fields this operator does not support are refused by name, never dropped',
  check: ({ given }) => [
    ...given.containers.flatMap((container, index) =>
      refusals(`spec.containers[${index}]`, container, LEFT_OUT_CONTAINER_FIELDS),
    ),
  ],
};
