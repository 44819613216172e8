/**
 * `validateBurstTarget`: what the API server would say about a BurstTarget, before sending it:
 * schema problems (types, bounds, enums, patterns, unknown fields) with field paths, then the rules
 * the CRD checks with CEL (the provider's block is set, no other provider's block is, the name is a
 * DNS label, the provider is fixed). Never throws on any input.
 */
import {
  AWS_REGION_PATTERN,
  BURST_TARGET_KIND,
  BurstTargetSchema,
  BurstTargetSpecSchema,
  EKS_CLUSTER_NAME_PATTERN,
  EKS_VERSION_PATTERN,
  GCP_LOCATION_PATTERN,
  GCP_PROJECT_PATTERN,
  GKE_CLUSTER_NAME_PATTERN,
  IAM_ROLE_ARN_PATTERN,
  MACHINE_TYPE_PATTERN,
  SECRET_KEY_PATTERN,
  SUBNET_ID_PATTERN,
} from './burst-target-schema.ts';
import type {
  BurstProvider,
  BurstTarget,
  BurstTargetSpec,
  DefaultedBurstTarget,
  DefaultedBurstTargetSpec,
} from './burst-target-schema.ts';
import { applySchemaDefaults } from './shared/defaulting.ts';
import { DNS_LABEL_MAX_LENGTH } from './shared/limits.ts';
import type { Problem } from './shared/problems.ts';
import { schemaProblems } from './shared/schema-errors.ts';
import { DNS_1035_LABEL_PATTERN } from './shared/schema-helpers.ts';
import { namespaceOf } from './shared/namespaced.ts';

export type BurstTargetValidationResult =
  { ok: true; value: DefaultedBurstTarget } | { ok: false; problems: Problem[] };

/** What the BurstTarget patterns mean, for the messages (schema-errors.ts knows only the common ones). */
const PATTERN_MEANINGS: Record<string, string> = {
  [SECRET_KEY_PATTERN]: 'must be a Secret key: letters, digits, "-", "_" and "."',
  [GCP_PROJECT_PATTERN]:
    'must be a GCP project id: 6 to 30 lowercase letters, digits and "-", starting with a letter',
  [GCP_LOCATION_PATTERN]: 'must be a GCP region or zone such as us-central1 or us-central1-a',
  [GKE_CLUSTER_NAME_PATTERN]:
    'must be a GKE cluster name: lowercase letters, digits and "-", starting with a letter',
  [MACHINE_TYPE_PATTERN]: 'must be a machine type such as e2-standard-8 or c5.4xlarge',
  [AWS_REGION_PATTERN]: 'must be an AWS region such as us-east-1',
  [EKS_CLUSTER_NAME_PATTERN]:
    'must be an EKS cluster name: letters, digits, "-" and "_", starting with a letter or digit',
  [IAM_ROLE_ARN_PATTERN]: 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/eks-nodes',
  [SUBNET_ID_PATTERN]: 'must be a subnet id such as subnet-0123456789abcdef0',
  [EKS_VERSION_PATTERN]: 'must be a Kubernetes version major.minor such as 1.33',
};

function explained(problem: Problem): Problem {
  for (const [pattern, meaning] of Object.entries(PATTERN_MEANINGS)) {
    const prefix = `must match ${pattern}`;
    if (problem.message.startsWith(prefix)) {
      return { ...problem, message: `${meaning}${problem.message.slice(prefix.length)}` };
    }
  }
  return problem;
}

const PROVIDER_BLOCKS: Record<BurstProvider, { field: 'kubeconfig' | 'gke' | 'eks'; what: string }> = {
  kubeconfig: { field: 'kubeconfig', what: 'name the Secret holding the kubeconfig' },
  gke: { field: 'gke', what: 'give the project, location, clusterName and machineType' },
  eks: {
    field: 'eks',
    what: 'give the region, clusterName, roleArn, nodeRoleArn, subnetIds and instanceType',
  },
};

/** The CEL rules of the spec and the root, as problems (the same messages the API server gives). */
function ruleProblems(target: BurstTarget, previous: BurstTarget | undefined): Problem[] {
  const problems: Problem[] = [];
  const name = target.metadata.name;
  if (name.length > DNS_LABEL_MAX_LENGTH || !new RegExp(DNS_1035_LABEL_PATTERN).test(name)) {
    problems.push({
      path: 'metadata.name',
      message: `must be a DNS label starting with a letter (lowercase letters, digits, -; at most ${DNS_LABEL_MAX_LENGTH}), since MiniClusters refer to it by that name; got ${JSON.stringify(name)}`,
    });
  }
  const spec = target.spec;
  for (const [provider, block] of Object.entries(PROVIDER_BLOCKS) as [
    BurstProvider,
    (typeof PROVIDER_BLOCKS)[BurstProvider],
  ][]) {
    const present = spec[block.field] !== undefined;
    if (spec.provider === provider && !present) {
      problems.push({
        path: `spec.${block.field}`,
        message: `is required when provider is ${provider}; ${block.what}`,
      });
    }
    if (spec.provider !== provider && present) {
      problems.push({
        path: `spec.${block.field}`,
        message: `is only read when provider is ${provider}; remove it or set provider: ${provider}`,
      });
    }
  }
  if (previous && previous.spec.provider !== spec.provider) {
    problems.push({
      path: 'spec.provider',
      message: `is fixed at creation (was ${previous.spec.provider}); create another BurstTarget instead`,
    });
  }
  return problems;
}

/**
 * The defaulted spec: schema defaults (`kubeconfig.key`) and `namespace` defaulting to the
 * BurstTarget's own namespace (`localNamespace`).
 */
export function applyBurstTargetDefaults(
  spec: BurstTargetSpec,
  localNamespace: string,
): DefaultedBurstTargetSpec {
  const defaulted = applySchemaDefaults(BurstTargetSpecSchema, spec) as DefaultedBurstTargetSpec;
  defaulted.namespace = spec.namespace ?? localNamespace;
  return defaulted;
}

/** The BurstTarget with its spec defaulted (metadata and status are copied as they are). */
export function defaultBurstTarget(target: BurstTarget): DefaultedBurstTarget {
  return { ...target, spec: applyBurstTargetDefaults(target.spec, namespaceOf(target)) };
}

/**
 * Problems of a BurstTarget, or its defaulted form. `previous`, when given, is the stored object an
 * update would replace (for the rules on changes).
 */
export function validateBurstTarget(input: unknown, previous?: BurstTarget): BurstTargetValidationResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: [{ path: '', message: `must be a ${BURST_TARGET_KIND} object` }] };
  }
  const shapeProblems = schemaProblems(BurstTargetSchema, input).map(explained);
  if (shapeProblems.length > 0) return { ok: false, problems: shapeProblems };
  const given = input as BurstTarget;
  const problems = ruleProblems(given, previous);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: defaultBurstTarget(given) };
}
