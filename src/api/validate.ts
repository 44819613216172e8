/**
 * `validateMiniCluster`: what the API server would say about a v1alpha2 MiniCluster, before
 * sending it. Schema problems first (types, bounds, enums, unknown fields); when the shape is right,
 * the rules of what v1alpha2 adds or shapes differently (rules.ts), then v1alpha1's rules on the
 * fields the versions share, run on the object's v1alpha1 form (convert-spec.ts) and reported at
 * their v1alpha2 paths. Never throws on any input.
 */
import { API_VERSION_V1ALPHA1 } from './v1alpha1/version.ts';
import type { Problem } from './shared/problems.ts';
import { USERS_MESSAGE_V1ALPHA1 } from './shared/restful-schema.ts';
import { MiniClusterV1alpha1Schema } from './v1alpha1/schema.ts';
import type { MiniClusterV1alpha1 } from './v1alpha1/schema.ts';
import { schemaProblems } from './shared/schema-errors.ts';
import {
  CONTAINER_CHECKS_FOR_SERVICES,
  SEMANTIC_RULES_V1ALPHA1,
  serviceContainers,
  serviceContainersWith,
} from './v1alpha1/semantic-rules.ts';
import { sharedMemory } from './v1alpha1/shm-rules.ts';
import { storageVolumes } from './v1alpha1/storage-rules.ts';
import { withoutNulls } from './shared/without-nulls.ts';
import { volumes } from './v1alpha1/volume-rules.ts';
import { defaultMiniClusterV1alpha1 } from './v1alpha1/defaults.ts';
import { specToV1alpha1, statusToV1alpha1 } from './v1alpha1/convert-spec.ts';
import { defaultMiniCluster } from './defaults.ts';
import type { DefaultsOptions } from './defaults.ts';
import { SEMANTIC_RULES } from './rules.ts';
import { MiniClusterSchema, USERS_MESSAGE } from './schema.ts';
import type { DefaultedMiniCluster, MiniCluster } from './schema.ts';

export type ValidationResult = { ok: true; value: DefaultedMiniCluster } | { ok: false; problems: Problem[] };

/**
 * v1alpha1's rules for the v1alpha1 form, but for those of volumes: v1alpha2's volumes are not
 * v1alpha1's (a source v1alpha1 lacks, a scratch directory), so rules.ts checks them itself; and
 * the /dev/shm rule, which reads hostIPC too in v1alpha2 (rules.ts).
 */
const SHARED_RULES = [
  ...SEMANTIC_RULES_V1ALPHA1.filter(
    (rule) =>
      rule !== volumes && rule !== storageVolumes && rule !== serviceContainers && rule !== sharedMemory,
  ),
  serviceContainersWith(CONTAINER_CHECKS_FOR_SERVICES.filter((rule) => rule !== volumes)),
];

/** v1alpha1's words for what v1alpha2 spells otherwise, in the v1alpha1 form's problems. */
function inV1alpha2Words(problem: Problem): Problem {
  const path = problem.path.replace(
    /\.securityContext\.addCapabilities(?=\[|$)/,
    '.securityContext.capabilities.add',
  );
  const message = problem.message === USERS_MESSAGE_V1ALPHA1 ? USERS_MESSAGE : problem.message;
  return { path, message };
}

function sharedProblems(given: MiniCluster): Problem[] {
  const form = {
    apiVersion: API_VERSION_V1ALPHA1,
    kind: given.kind,
    metadata: given.metadata,
    spec: specToV1alpha1(given.spec),
    ...(given.status === undefined ? {} : { status: statusToV1alpha1(given.status) }),
  };
  // A v1alpha2 spec of the right shape has a v1alpha1 form of the right shape; should one not, its
  // problems are still reported, where v1alpha2 has the field.
  const shape = schemaProblems(MiniClusterV1alpha1Schema, form);
  if (shape.length > 0) return shape.map(inV1alpha2Words);
  const v1alpha1 = form as MiniClusterV1alpha1;
  const value = defaultMiniClusterV1alpha1(v1alpha1);
  const input = {
    name: v1alpha1.metadata.name,
    given: v1alpha1.spec,
    spec: value.spec,
    status: v1alpha1.status,
  };
  return SHARED_RULES.flatMap((rule) => rule.check(input)).map(inV1alpha2Words);
}

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
  const problems = [...own, ...sharedProblems(given).filter((problem) => !ownPaths.has(problem.path))];
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
