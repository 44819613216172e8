/**
 * The BurstTarget schema: where a MiniCluster may burst to (like Kueue's MultiKueueCluster). One
 * schema is the source of the TypeScript types, the runtime validation (burst-target-validate.ts)
 * and the CRD (burst-target-crd.ts, written to deploy/burst-target-crd.yaml by hack/generate.ts).
 *
 * A BurstTarget is namespaced: `spec.flux.bursting.policy.targets[].name` of a MiniCluster names a
 * BurstTarget in the MiniCluster's own namespace, so the credentials Secret stays in that namespace
 * and a namespace's users can only burst where that namespace allows.
 */
import { CloneType, Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { GROUP } from './group.ts';
import { DNS_LABEL_MAX_LENGTH, DNS_SUBDOMAIN_MAX_LENGTH, SHORT_STRING_MAX_LENGTH } from './shared/limits.ts';
import { ObjectMetaSchema } from './shared/spec-fields.ts';
import {
  DNS_1035_LABEL_PATTERN,
  celRules,
  derivedDefault,
  dns1123Label,
  objectName,
  stringEnum,
  withDefault,
} from './shared/schema-helpers.ts';
import type { Defaulted } from './shared/schema-helpers.ts';
import { ConditionSchema } from './shared/status-schema.ts';

export const BURST_TARGET_KIND = 'BurstTarget';
export const BURST_TARGET_LIST_KIND = 'BurstTargetList';
export const BURST_TARGET_PLURAL = 'bursttargets';
export const BURST_TARGET_SINGULAR = 'bursttarget';
export const BURST_TARGET_SHORT_NAMES: readonly string[] = ['bt'];
/** BurstTarget has one version of its own, whatever the MiniCluster's are. */
export const BURST_TARGET_VERSION = 'v1alpha1';
export const BURST_TARGET_API_VERSION = `${GROUP}/${BURST_TARGET_VERSION}`;
/** The CRD's own name: `<plural>.<group>`. */
export const BURST_TARGET_CRD_NAME = `${BURST_TARGET_PLURAL}.${GROUP}`;

/** The condition the operator keeps on every BurstTarget: True while the target answers. */
export const CONDITION_CONNECTED = 'Connected';

export const BURST_PROVIDERS = ['kubeconfig', 'gke', 'eks'] as const;
export type BurstProvider = (typeof BURST_PROVIDERS)[number];

/** The key of the kubeconfig in its Secret when `spec.kubeconfig.key` is unset. */
export const DEFAULT_KUBECONFIG_KEY = 'kubeconfig';

/** A Secret data key: what `kubectl create secret generic --from-file` accepts. */
export const SECRET_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';
/** A GCP project id. */
export const GCP_PROJECT_PATTERN = '^[a-z][-a-z0-9]{4,28}[a-z0-9]$';
/** A GCP region (`us-central1`) or zone (`us-central1-a`). */
export const GCP_LOCATION_PATTERN = '^[a-z]+-[a-z]+[0-9]+(-[a-z])?$';
/** A GKE cluster name: at most 40 characters. */
export const GKE_CLUSTER_NAME_PATTERN = '^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$';
/** A machine or instance type such as `e2-standard-8` or `c5.4xlarge`. */
export const MACHINE_TYPE_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';
/** An AWS region such as `us-east-1` or `us-gov-west-1`. */
export const AWS_REGION_PATTERN = '^[a-z]{2}(-[a-z]+)+-[0-9]+$';
/** An EKS cluster name. */
export const EKS_CLUSTER_NAME_PATTERN = '^[0-9A-Za-z][-_0-9A-Za-z]*$';
/** An IAM role ARN. */
export const IAM_ROLE_ARN_PATTERN = '^arn:aws[-a-z]*:iam::[0-9]{12}:role/[-+=,.@_/0-9A-Za-z]+$';
/** A VPC subnet id. */
export const SUBNET_ID_PATTERN = '^subnet-[0-9a-f]{8,17}$';
/** An EKS Kubernetes version: `major.minor`, e.g. `1.33`. */
export const EKS_VERSION_PATTERN = '^1\\.[0-9]{1,3}$';

/** Nodes of a created cluster's node pool when `nodeCount` is unset. */
export const DEFAULT_NODE_COUNT = 1;
/** Upper bound of `nodeCount` (GKE's per-zone node pool limit; EKS's default node group quota). */
export const MAX_NODE_COUNT = 1000;

export const KubeconfigSourceSchema = Type.Object(
  {
    secretName: objectName(
      "Secret (in the BurstTarget's namespace) holding the kubeconfig of the target cluster. The kubeconfig must carry its credentials inline (token or client certificate; `kubectl config view --flatten --minify`): exec and auth-provider plugins and file paths are refused.",
    ),
    key: withDefault(
      Type.String({
        description: 'Key of the kubeconfig in the Secret.',
        minLength: 1,
        maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
        pattern: SECRET_KEY_PATTERN,
      }),
      DEFAULT_KUBECONFIG_KEY,
    ),
    installOperator: withDefault(
      Type.Boolean({
        description:
          'When the target does not serve MiniClusters, install the operator there (CRDs, RBAC, Deployment), as for gke and eks targets; the kubeconfig then needs rights to create those. Off: the Connected condition says OperatorMissing and how to install it.',
      }),
      false,
    ),
  },
  { description: 'A Kubernetes cluster given by a kubeconfig in a Secret.', additionalProperties: false },
);

function credentialsSecret(keys: string) {
  return Type.Optional(
    objectName(
      `Secret (in the BurstTarget's namespace) with the cloud credentials the operator uses (${keys}); they never reach MiniCluster pods. Unset: the operator's workload identity.`,
    ),
  );
}

function patterned(description: string, pattern: string, maxLength: number) {
  return Type.String({ description, minLength: 1, maxLength, pattern });
}

function nodeCount(description: string) {
  return withDefault(Type.Integer({ description, minimum: 1, maximum: MAX_NODE_COUNT }), DEFAULT_NODE_COUNT);
}

/**
 * CEL: the fields naming the cloud cluster are fixed once set. The operator made that cluster for this
 * BurstTarget and deletes it with it; another name would leave the first one running (and billed) with
 * nothing to delete it, so another cluster takes another BurstTarget.
 */
function fixedClusterRule(block: 'gke' | 'eks', fields: readonly string[]) {
  return {
    rule: fields.map((field) => `self.${field} == oldSelf.${field}`).join(' && '),
    message: `spec.${block}.${fields.join(', ')} name the cluster the operator made for this BurstTarget and are fixed at creation; for another cluster create another BurstTarget (deleting this one deletes its cluster)`,
    reason: 'FieldValueForbidden' as const,
  };
}

export const GkeTargetSchema = Type.Object(
  {
    project: patterned('GCP project id the cluster is created in.', GCP_PROJECT_PATTERN, 30),
    location: patterned(
      'GCP region (regional cluster) or zone (zonal cluster), e.g. us-central1 or us-central1-a.',
      GCP_LOCATION_PATTERN,
      DNS_LABEL_MAX_LENGTH,
    ),
    clusterName: patterned('Name of the GKE cluster to create.', GKE_CLUSTER_NAME_PATTERN, 40),
    machineType: patterned(
      'Machine type of the nodes, e.g. e2-standard-8.',
      MACHINE_TYPE_PATTERN,
      DNS_LABEL_MAX_LENGTH,
    ),
    nodeCount: nodeCount(
      'Nodes of the node pool; for a regional cluster (location is a region), per zone of the region.',
    ),
    credentialsSecret: credentialsSecret('key credentials.json: a service account key'),
  },
  {
    description: 'A GKE cluster the operator creates (and deletes), installs itself into, then bursts to.',
    additionalProperties: false,
    ...celRules(fixedClusterRule('gke', ['project', 'location', 'clusterName'])),
  },
);

const MAX_SUBNETS = 16;

export const EksTargetSchema = Type.Object(
  {
    region: patterned('AWS region, e.g. us-east-1.', AWS_REGION_PATTERN, DNS_LABEL_MAX_LENGTH),
    clusterName: patterned('Name of the EKS cluster to create.', EKS_CLUSTER_NAME_PATTERN, 100),
    roleArn: patterned(
      'ARN of the IAM role the EKS control plane assumes (trusted by eks.amazonaws.com, policy AmazonEKSClusterPolicy).',
      IAM_ROLE_ARN_PATTERN,
      SHORT_STRING_MAX_LENGTH,
    ),
    nodeRoleArn: patterned(
      "ARN of the IAM role of the cluster's nodes (trusted by ec2.amazonaws.com; policies AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy, AmazonEC2ContainerRegistryReadOnly).",
      IAM_ROLE_ARN_PATTERN,
      SHORT_STRING_MAX_LENGTH,
    ),
    subnetIds: Type.Array(patterned('A VPC subnet id.', SUBNET_ID_PATTERN, 32), {
      description: 'Subnets of the cluster, in at least two availability zones (EKS requires two).',
      minItems: 2,
      maxItems: MAX_SUBNETS,
      'x-kubernetes-list-type': 'set',
    }),
    instanceType: patterned('EC2 instance type of the nodes, e.g. c5.4xlarge.', MACHINE_TYPE_PATTERN, 64),
    nodeCount: nodeCount('Nodes of the managed node group.'),
    kubernetesVersion: Type.Optional(
      patterned(
        "Kubernetes version of the control plane (major.minor, e.g. 1.33). Unset: EKS's default version.",
        EKS_VERSION_PATTERN,
        16,
      ),
    ),
    credentialsSecret: credentialsSecret('keys AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN'),
  },
  {
    description: 'An EKS cluster the operator creates (and deletes), installs itself into, then bursts to.',
    additionalProperties: false,
    ...celRules(fixedClusterRule('eks', ['region', 'clusterName'])),
  },
);

/** CEL: the block of the chosen provider is set, and no other provider's block is. */
function providerBlockRules(provider: BurstProvider, field: string, what: string) {
  return [
    {
      rule: `self.provider != '${provider}' || has(self.${field})`,
      message: `spec.${field} is required when provider is ${provider}; ${what}`,
      fieldPath: `.${field}`,
      reason: 'FieldValueRequired' as const,
    },
    {
      rule: `!has(self.${field}) || self.provider == '${provider}'`,
      message: `spec.${field} is only read when provider is ${provider}; remove it or set provider: ${provider}`,
      fieldPath: `.${field}`,
      reason: 'FieldValueForbidden' as const,
    },
  ];
}

export const BurstTargetSpecSchema = Type.Object(
  {
    provider: stringEnum(
      [...BURST_PROVIDERS],
      'How the target cluster is reached: kubeconfig (any Kubernetes cluster, from a Secret), gke or eks (a cluster the operator creates). Fixed at creation.',
    ),
    kubeconfig: Type.Optional(KubeconfigSourceSchema),
    namespace: derivedDefault(
      dns1123Label(
        "Namespace on the target cluster where burst MiniClusters are created. Default: the BurstTarget's own namespace name.",
      ),
    ),
    gke: Type.Optional(GkeTargetSchema),
    eks: Type.Optional(EksTargetSchema),
    queueName: Type.Optional(
      dns1123Label(
        "Kueue's LocalQueue on the target cluster, in spec.namespace: burst MiniClusters made there carry it as their kueue.x-k8s.io/queue-name label, so that they wait in that queue and start as a whole under its quota (docs/kueue.md). Unset: they are not queued.",
      ),
    ),
  },
  {
    description: 'Where to burst and how to connect there.',
    additionalProperties: false,
    ...celRules(
      ...providerBlockRules('kubeconfig', 'kubeconfig', 'name the Secret holding the kubeconfig'),
      ...providerBlockRules('gke', 'gke', 'give the project, location, clusterName and machineType'),
      ...providerBlockRules(
        'eks',
        'eks',
        'give the region, clusterName, roleArn, nodeRoleArn, subnetIds and instanceType',
      ),
      {
        // A cloud cluster created for one provider cannot be managed by another: recreate instead.
        rule: 'self.provider == oldSelf.provider',
        message: 'spec.provider is fixed at creation; create another BurstTarget instead',
        fieldPath: '.provider',
        reason: 'FieldValueForbidden',
      },
    ),
  },
);

function timestamp(description: string) {
  return Type.String({ description, format: 'date-time' });
}

export const BurstTargetStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(CloneType(ConditionSchema, { description: "One aspect of the BurstTarget's state." }), {
        description: 'Latest observations of the target, one per type (Connected).',
        maxItems: 32,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    observedGeneration: Type.Optional(
      Type.Integer({ description: 'metadata.generation the status was computed from.', minimum: 0 }),
    ),
    server: Type.Optional(
      Type.String({
        description: "URL of the target's API server last reached.",
        maxLength: SHORT_STRING_MAX_LENGTH,
      }),
    ),
    kubernetesVersion: Type.Optional(
      Type.String({ description: 'Kubernetes version the target reported (gitVersion).', maxLength: 64 }),
    ),
    lastConnectedTime: Type.Optional(timestamp('When the target last answered.')),
  },
  { description: 'Observed state of the BurstTarget, written by the operator.', additionalProperties: false },
);

export const BurstTargetSchema = Type.Object(
  {
    apiVersion: Type.Literal(BURST_TARGET_API_VERSION, { description: 'API version of the object.' }),
    kind: Type.Literal(BURST_TARGET_KIND, { description: 'Kind of the object.' }),
    metadata: ObjectMetaSchema,
    spec: BurstTargetSpecSchema,
    status: Type.Optional(BurstTargetStatusSchema),
  },
  {
    description:
      'A BurstTarget says where MiniClusters of its namespace may burst to: a Kubernetes cluster given by a kubeconfig Secret, or a GKE or EKS cluster the operator creates.',
    ...celRules({
      // MiniClusters name targets in spec.flux.bursting.policy.targets[].name, an RFC 1035 label.
      rule: `self.metadata.name.size() <= ${DNS_LABEL_MAX_LENGTH} && self.metadata.name.matches('${DNS_1035_LABEL_PATTERN}')`,
      message:
        'metadata.name must be a DNS label starting with a letter (lowercase letters, digits, -; at most 63), since MiniClusters refer to it by that name',
      reason: 'FieldValueInvalid',
    }),
  },
);

export type BurstTargetSpec = Static<typeof BurstTargetSpecSchema>;
export type BurstTargetStatus = Static<typeof BurstTargetStatusSchema>;
export type BurstTarget = Static<typeof BurstTargetSchema>;
export type KubeconfigSource = Static<typeof KubeconfigSourceSchema>;
export type GkeTarget = Static<typeof GkeTargetSchema>;
export type EksTarget = Static<typeof EksTargetSchema>;
/** The spec after `applyBurstTargetDefaults`: `namespace`, `kubeconfig.key` and `kubeconfig.installOperator` are present. */
export type DefaultedBurstTargetSpec = Defaulted<typeof BurstTargetSpecSchema>;
export type DefaultedBurstTarget = Omit<BurstTarget, 'spec'> & { spec: DefaultedBurstTargetSpec };
