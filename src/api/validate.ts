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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value without null fields and map entries, as the API server prunes them from a custom
 * resource before defaulting and validation (`field: null` reads as no field). Nulls in lists stay.
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== null)
      .map(([key, field]) => [key, withoutNulls(field)]),
  );
}

export function validateMiniCluster(raw: unknown): ValidationResult {
  if (!isPlainObject(raw)) {
    return { ok: false, problems: [{ path: '', message: 'must be a MiniCluster object' }] };
  }
  const input = withoutNulls(raw);
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
