/**
 * `validateMiniClusterV1alpha1`: what the API server would say about a MiniCluster, before sending it.
 * Schema problems first (types, bounds, enums, unknown fields); when the shape is right, the
 * semantic rules (semantic-rules.ts) on the defaulted spec. Never throws on any input.
 */
import { defaultMiniClusterV1alpha1 } from './defaults.ts';
import type { Problem } from '../shared/problems.ts';
import { MiniClusterV1alpha1Schema } from './schema.ts';
import type { DefaultedMiniClusterV1alpha1, MiniClusterV1alpha1 } from './schema.ts';
import { schemaProblems } from '../shared/schema-errors.ts';
import { semanticProblems } from './semantic-rules.ts';
import { isPlainObject, withoutNulls } from '../shared/without-nulls.ts';

export type { Problem } from '../shared/problems.ts';
export { formatProblem } from '../shared/problems.ts';

export type ValidationResultV1alpha1 =
  { ok: true; value: DefaultedMiniClusterV1alpha1 } | { ok: false; problems: Problem[] };

export function validateMiniClusterV1alpha1(raw: unknown): ValidationResultV1alpha1 {
  if (!isPlainObject(raw)) {
    return { ok: false, problems: [{ path: '', message: 'must be a MiniCluster object' }] };
  }
  const input = withoutNulls(raw);
  const shapeProblems = schemaProblems(MiniClusterV1alpha1Schema, input);
  // The semantic rules read typed fields; on a malformed shape they would report noise (or throw).
  if (shapeProblems.length > 0) return { ok: false, problems: shapeProblems };

  const given = input as MiniClusterV1alpha1;
  const value = defaultMiniClusterV1alpha1(given);
  const problems = semanticProblems({
    name: given.metadata.name,
    given: given.spec,
    spec: value.spec,
    status: given.status,
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
