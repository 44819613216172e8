/**
 * `validateMiniCluster`: what the API server would say about a v1alpha2 MiniCluster, before
 * sending it. Schema problems first (types, bounds, enums, unknown fields); when the shape is right,
 * the rules of what v1alpha2 adds or shapes differently (rules.ts), then v1alpha1's rules on the
 * fields the versions share, run on the object's v1alpha1 form and reported at their v1alpha2 paths
 * (v1alpha1/rules-on-hub.ts: the hub's one import of the spoke's rules). Never throws on any input.
 */
import type { Problem } from './shared/problems.ts';
import { schemaProblems } from './shared/schema-errors.ts';
import { withoutNulls } from './shared/without-nulls.ts';
import { sharedRuleProblems } from './v1alpha1/rules-on-hub.ts';
import { defaultMiniCluster } from './defaults.ts';
import type { DefaultsOptions } from './defaults.ts';
import { SEMANTIC_RULES } from './rules.ts';
import { MiniClusterSchema } from './schema.ts';
import type { DefaultedMiniCluster, MiniCluster } from './schema.ts';

export type ValidationResult = { ok: true; value: DefaultedMiniCluster } | { ok: false; problems: Problem[] };

/** v1alpha1's names that v1alpha2 spells otherwise, and where the fields went. */
const V1ALPHA1_NAMES: readonly [RegExp, string][] = [
  [
    /^spec\.(containers|services)\[\d+\]\.existingVolumes$/,
    "is v1alpha1's name: in v1alpha2 a container's volumes are all in volumes; move these there",
  ],
  [
    /^spec\.(containers|services)\[\d+\]\.securityContext\.addCapabilities$/,
    "is v1alpha1's name: v1alpha2 takes Kubernetes' securityContext, where added capabilities are capabilities.add; move them there",
  ],
];

/** An unknown field that is a v1alpha1 name gets a message saying where v1alpha2 has it. */
function withV1alpha1Names(problem: Problem): Problem {
  const renamed = V1ALPHA1_NAMES.find(([path]) => path.test(problem.path))?.[1];
  return renamed !== undefined && problem.message.startsWith('is not a field')
    ? { ...problem, message: renamed }
    : problem;
}

export function validateMiniCluster(raw: unknown, options: DefaultsOptions = {}): ValidationResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problems: [{ path: '', message: 'must be a MiniCluster object' }] };
  }
  const input = withoutNulls(raw);
  const shapeProblems = schemaProblems(MiniClusterSchema, input);
  if (shapeProblems.length > 0) return { ok: false, problems: shapeProblems.map(withV1alpha1Names) };

  const given = input as MiniCluster;
  const value = defaultMiniCluster(given, options);
  const ruleInput = { name: given.metadata.name, given: given.spec, spec: value.spec, status: given.status };
  const own = SEMANTIC_RULES.flatMap((rule) => rule.check(ruleInput));
  // A field v1alpha2 shapes otherwise may be wrong in both forms: it is reported once, in v1alpha2's words.
  const ownPaths = new Set(own.map((problem) => problem.path));
  const problems = [...own, ...sharedRuleProblems(given).filter((problem) => !ownPaths.has(problem.path))];
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
