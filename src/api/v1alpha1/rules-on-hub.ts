/**
 * v1alpha1's rules on a hub (v1alpha2) MiniCluster: the rules of the fields both versions share are
 * written once, for v1alpha1's shape, so the hub's validator (../validate.ts) runs them on the
 * object's v1alpha1 form (convert-spec.ts) and reports their problems in v1alpha2's words and paths.
 */
import type { Problem } from '../shared/problems.ts';
import { USERS_MESSAGE_V1ALPHA1 } from '../shared/restful-schema.ts';
import { schemaProblems } from '../shared/schema-errors.ts';
import { USERS_MESSAGE } from '../schema.ts';
import type { MiniCluster } from '../schema.ts';
import { specToV1alpha1, statusToV1alpha1 } from './convert-spec.ts';
import { defaultMiniClusterV1alpha1 } from './defaults.ts';
import { MiniClusterV1alpha1Schema } from './schema.ts';
import type { MiniClusterV1alpha1 } from './schema.ts';
import {
  CONTAINER_CHECKS_FOR_SERVICES,
  SEMANTIC_RULES_V1ALPHA1,
  serviceContainers,
  serviceContainersWith,
} from './semantic-rules.ts';
import { sharedMemory } from './shm-rules.ts';
import { storageVolumes } from './storage-rules.ts';
import { API_VERSION_V1ALPHA1 } from './version.ts';
import { volumes } from './volume-rules.ts';

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

/** v1alpha1's rules on the fields both versions share, for a hub MiniCluster of the right shape. */
export function sharedRuleProblems(given: MiniCluster): Problem[] {
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
