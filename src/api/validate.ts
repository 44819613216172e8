/**
 * `validateMiniCluster`: what the API server would say about a MiniCluster, before sending it.
 * Schema problems first (types, bounds, enums, unknown fields); when the shape is right, the
 * semantic rules (semantic-rules.ts) on the defaulted spec. Never throws on any input.
 */
import { defaultMiniCluster } from './defaults.ts';
import type { Problem } from './problems.ts';
import { MiniClusterSchema } from './schema.ts';
import type { DefaultedMiniCluster, MiniCluster } from './schema.ts';
import { schemaProblems } from './schema-errors.ts';
import { semanticProblems } from './semantic-rules.ts';

export type { Problem } from './problems.ts';
export { formatProblem } from './problems.ts';

export type ValidationResult = { ok: true; value: DefaultedMiniCluster } | { ok: false; problems: Problem[] };

export function validateMiniCluster(input: unknown): ValidationResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: [{ path: '', message: 'must be a MiniCluster object' }] };
  }
  const shapeProblems = schemaProblems(MiniClusterSchema, input);
  // The semantic rules read typed fields; on a malformed shape they would report noise (or throw).
  if (shapeProblems.length > 0) return { ok: false, problems: shapeProblems };

  const given = input as MiniCluster;
  const value = defaultMiniCluster(given);
  const problems = semanticProblems({
    name: given.metadata.name,
    given: given.spec,
    spec: value.spec,
    status: given.status,
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
