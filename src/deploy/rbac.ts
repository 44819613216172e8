/**
 * The operator's RBAC: exactly the verbs the controller uses, each rule with the reason it exists.
 * install.yaml, the Helm chart and `flux-operator install` all take their rules from here.
 */
import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1PolicyRule,
  V1Role,
  V1RoleBinding,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { BURST_TARGET_PLURAL, CRD_NAME, GROUP, PLURAL } from '../api/index.ts';
import type { Rendered } from '../render/kube-object.ts';
import {
  LEADER_ELECTION_ROLE_NAME,
  OPERATOR_NAME,
  OPERATOR_NAMESPACE,
  WEBHOOK_CERT_SECRET,
  WEBHOOK_ROLE_NAME,
  operatorLabels,
} from './constants.ts';

/** A policy rule and why the operator needs it (shown as a comment in the generated YAML). */
export interface DocumentedRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  /** Only these objects (a rule narrower than the whole resource). */
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly string[];
  readonly why: string;
}

/**
 * Verbs to manage an object the operator renders and server-side applies: apply is a `patch` (and a
 * `create` when the object is new); nothing of these kinds is ever replaced with a PUT, so no `update`.
 */
const MANAGE = ['get', 'list', 'watch', 'create', 'patch', 'delete'] as const;

/**
 * Rules that are cluster-wide whatever the operator watches: its own kinds (informers and their
 * status), the MiniCluster CRD's conversion webhook, PersistentVolumes (cluster-scoped) and
 * kube-system's uid.
 */
export const CLUSTER_RULES: readonly DocumentedRule[] = [
  {
    apiGroups: [GROUP],
    resources: [PLURAL],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    why:
      'Watch MiniClusters; create and remove the burst MiniClusters of in-cluster bursting; patch the ' +
      'bursting finalizer; delete a finished one with spec.cleanup.',
  },
  {
    apiGroups: [GROUP],
    resources: [PLURAL],
    verbs: ['update'],
    why:
      'The storage-version migration: rewrite each MiniCluster once, unchanged (a PUT of the object as ' +
      'read), so that the API server stores those written as v1alpha1 as v1alpha2; nothing else replaces one.',
  },
  {
    apiGroups: [GROUP],
    resources: [`${PLURAL}/status`],
    verbs: ['patch'],
    why: 'Write MiniCluster status (conditions, size, selector) through the status subresource only.',
  },
  {
    apiGroups: [GROUP],
    resources: [`${PLURAL}/finalizers`],
    verbs: ['update'],
    why: 'Set ownerReferences with blockOwnerDeletion on children (the OwnerReferencesPermissionEnforcement admission plugin asks for update on finalizers).',
  },
  {
    apiGroups: [GROUP],
    resources: [BURST_TARGET_PLURAL],
    verbs: ['get', 'list', 'watch'],
    why: 'Watch BurstTargets (where MiniClusters may burst to); the operator never changes their spec.',
  },
  {
    apiGroups: [GROUP],
    resources: [`${BURST_TARGET_PLURAL}/status`],
    verbs: ['patch'],
    why: 'Write BurstTarget status (the Connected condition, server, version) through the status subresource only.',
  },
  {
    apiGroups: ['apiextensions.k8s.io'],
    resources: ['customresourcedefinitions'],
    resourceNames: [CRD_NAME],
    verbs: ['get', 'patch'],
    why: "Keep the MiniCluster CRD's conversion webhook (its Service or URL, and the caBundle of the CA the operator makes and renews) pointing at the operator; no other CRD.",
  },
  {
    apiGroups: ['apiextensions.k8s.io'],
    resources: ['customresourcedefinitions/status'],
    resourceNames: [CRD_NAME],
    verbs: ['patch'],
    why: "Set the MiniCluster CRD's status.storedVersions to v1alpha2 alone once the storage-version migration has rewritten every MiniCluster (so that v1alpha1 can later leave the CRD); no other CRD.",
  },
  {
    apiGroups: [''],
    resources: ['persistentvolumes'],
    verbs: ['list', 'watch', 'create', 'patch', 'delete'],
    why: 'The PersistentVolumes of hostpath and CSI spec.volumes (cluster-wide, named after namespace, MiniCluster and volume): applied, watched, and deleted by the volume collector once their MiniCluster is gone (delete: true). Never the data behind them: their reclaim policy is Retain.',
  },
  {
    apiGroups: ['authentication.k8s.io'],
    resources: ['tokenreviews'],
    verbs: ['create'],
    why: "Secure metrics: ask the API server whose bearer token a /metrics request carries (what kube-rbac-proxy asked for the Go operator).",
  },
  {
    apiGroups: ['authorization.k8s.io'],
    resources: ['subjectaccessreviews'],
    verbs: ['create'],
    why: 'Secure metrics: ask the API server whether that user may get /metrics (the ClusterRole flux-operator-metrics-reader grants it).',
  },
  {
    apiGroups: [''],
    resources: ['namespaces'],
    resourceNames: ['kube-system'],
    verbs: ['get'],
    why: "Read kube-system's uid: the cluster's identity, put on burst objects so the orphan collector removes only its own.",
  },
];

/**
 * Rules on what lives in the MiniClusters' namespaces: cluster-wide (in the ClusterRole) when the
 * operator watches every namespace, a Role in each watched namespace otherwise.
 */
export const NAMESPACED_RULES: readonly DocumentedRule[] = [
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: [...MANAGE],
    why: 'The indexed Job that runs the brokers: applied, watched for completion, deleted on resize, stopped (its activeDeadlineSeconds) when its pods can never start a broker.',
  },
  {
    apiGroups: [''],
    resources: ['services', 'configmaps', 'secrets'],
    verbs: [...MANAGE],
    why: 'Headless and lead-broker Services, broker config, CURVE certificate and munge key Secrets (the RESTful Service and Secret deleted once a spec stops serving the API); reading the kubeconfig and cloud credentials Secrets of BurstTargets, and keeping the copy of a gke/eks one that outlives its namespace.',
  },
  {
    apiGroups: ['apps'],
    resources: ['deployments'],
    verbs: [...MANAGE],
    why: 'The services pod of a MiniCluster with spec.services (a Deployment of one replica): applied, watched, deleted when the services are removed.',
  },
  {
    apiGroups: [''],
    resources: ['persistentvolumeclaims'],
    verbs: ['list', 'watch', 'create', 'patch'],
    why: 'The claims of spec.volumes: applied (server-side apply creates them) and watched; the garbage collector removes those their MiniCluster owns (delete: true).',
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['get', 'list', 'watch'],
    why: 'Read broker pod status (ready pods, the lead pod) for MiniCluster status; never changes pods.',
  },
  {
    apiGroups: [''],
    resources: ['pods/exec'],
    // A WebSocket exec is an HTTP GET upgrade, authorized as `get` (as `create` only where the API
    // server's AuthorizePodWebsocketUpgradeCreatePermission check is on): both, so it works on either.
    verbs: ['get', 'create'],
    why: 'The burst queue reader runs `flux jobs` in the lead broker pod (over a WebSocket).',
  },
  {
    apiGroups: [''],
    resources: ['namespaces'],
    verbs: ['get'],
    why: "Read the MiniCluster's namespace's labels: host storage only where flux-framework.org/host-storage=allowed (in a Role, the namespace it is in only).",
  },
  {
    apiGroups: ['kueue.x-k8s.io'],
    resources: ['workloads'],
    verbs: ['list'],
    why: "Read Kueue's Workload of a queued MiniCluster's Job (why it waits, or was evicted) for MiniCluster status; never changes them. Without Kueue, unused.",
  },
  {
    apiGroups: ['events.k8s.io'],
    resources: ['events'],
    verbs: ['create', 'patch'],
    why: 'Record events on MiniClusters (events.k8s.io/v1).',
  },
  {
    apiGroups: [''],
    resources: ['events'],
    verbs: ['create', 'patch'],
    why: 'Record events through the core/v1 API (older clients and kubectl describe).',
  },
];

/** Every rule of the ClusterRole of an operator watching every namespace. */
export const OPERATOR_RULES: readonly DocumentedRule[] = [...CLUSTER_RULES, ...NAMESPACED_RULES];

/**
 * The conversion webhook's certificate Secret and Service, in the operator's own namespace: the Secret created once, read
 * and replaced (a PUT with the resourceVersion read, so two replicas never both write). `create`
 * cannot be narrowed to a name (the API server authorizes it before the name is known).
 */
export const WEBHOOK_SECRET_RULES: readonly DocumentedRule[] = [
  {
    apiGroups: [''],
    resources: ['secrets'],
    resourceNames: [WEBHOOK_CERT_SECRET],
    verbs: ['get', 'update'],
    why: "Read and renew the conversion webhook's CA and serving certificate (only that Secret).",
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['create'],
    why: "Create the conversion webhook's certificate Secret the first time (in the operator's namespace only).",
  },
  {
    apiGroups: [''],
    resources: ['services'],
    verbs: ['get'],
    why: "Read the conversion webhook's Service (its name depends on the install), to say why the webhook does not answer when it does not.",
  },
];

/** Namespaced rules (a Role in the operator's namespace only): the leader-election Lease. */
export const LEADER_ELECTION_RULES: readonly DocumentedRule[] = [
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'create', 'update'],
    why: "Leader election: read the Lease, create it once, renew or take it over (only in the operator's namespace).",
  },
  {
    apiGroups: ['discovery.k8s.io'],
    resources: ['endpointslices'],
    verbs: ['list'],
    why: "Count the ready endpoints of the conversion webhook's Service (in the operator's namespace), to say why the webhook does not answer when it does not.",
  },
];

/** The Kubernetes form of a documented rule (without the reason). */
export function policyRule(rule: DocumentedRule): V1PolicyRule {
  const result: V1PolicyRule = { apiGroups: [...rule.apiGroups], resources: [...rule.resources], verbs: [...rule.verbs] };
  if (rule.resourceNames) result.resourceNames = [...rule.resourceNames];
  return result;
}

export function serviceAccount(namespace: string): Rendered<V1ServiceAccount> {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: OPERATOR_NAME, namespace, labels: operatorLabels() },
  };
}

/**
 * The ClusterRole: every rule when the operator watches every namespace, only CLUSTER_RULES when it
 * watches some (their namespaced rules are Roles there). Installs of both kinds in one cluster would
 * share the name and take it from each other, so one that watches namespaces names its own.
 */
export function clusterRole(watched: readonly string[] = [], namespace = OPERATOR_NAMESPACE): Rendered<V1ClusterRole> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: clusterRoleName(watched, namespace), labels: operatorLabels() },
    rules: (watched.length > 0 ? CLUSTER_RULES : OPERATOR_RULES).map(policyRule),
  };
}

export const METRICS_READER_ROLE = `${OPERATOR_NAME}-metrics-reader`;

/**
 * What a scraper needs to read the operator's /metrics (`--metrics-secure`): bind it to Prometheus's
 * ServiceAccount with a ClusterRoleBinding. The operator grants it to nobody itself.
 */
export function metricsReaderClusterRole(): Rendered<V1ClusterRole> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: METRICS_READER_ROLE, labels: operatorLabels() },
    rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
  };
}

/** `flux-operator`, or `flux-operator-cluster-<namespace>` for an install that watches namespaces. */
export function clusterRoleName(watched: readonly string[] = [], namespace = OPERATOR_NAMESPACE): string {
  return watched.length > 0 ? `${OPERATOR_NAME}-cluster-${namespace}` : OPERATOR_NAME;
}

/** The Role of an operator (installed in `operatorNamespace`) in a namespace it watches. */
export function watchedNamespaceRole(namespace: string, operatorNamespace: string): Rendered<V1Role> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: watchedRoleName(operatorNamespace), namespace, labels: operatorLabels() },
    rules: NAMESPACED_RULES.map(policyRule),
  };
}

export function watchedRoleName(operatorNamespace: string): string {
  return clusterRoleBindingName(operatorNamespace);
}

export function watchedNamespaceRoleBinding(namespace: string, operatorNamespace: string): Rendered<V1RoleBinding> {
  const name = watchedRoleName(operatorNamespace);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace, labels: operatorLabels() },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace: operatorNamespace }],
  };
}

/** The Role (and binding) of the webhook's certificate Secret in the operator's namespace. */
export function webhookSecretRole(namespace: string): Rendered<V1Role> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: WEBHOOK_ROLE_NAME, namespace, labels: operatorLabels() },
    rules: WEBHOOK_SECRET_RULES.map(policyRule),
  };
}

export function webhookSecretRoleBinding(namespace: string): Rendered<V1RoleBinding> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: WEBHOOK_ROLE_NAME, namespace, labels: operatorLabels() },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: WEBHOOK_ROLE_NAME },
    subjects: [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace }],
  };
}

/**
 * The ClusterRoleBinding of an install that watches every namespace (one that watches some binds
 * its own ClusterRole under that ClusterRole's name: a roleRef cannot change, and the install
 * removes the other mode's binding when it switches). One binding per namespace the operator is installed in: installs in two namespaces of one cluster
 * (a test install beside the real one, say) would otherwise take the binding from each other. The
 * default namespace keeps the plain name.
 */
export function clusterRoleBindingName(namespace: string): string {
  return namespace === OPERATOR_NAMESPACE ? OPERATOR_NAME : `${OPERATOR_NAME}-${namespace}`;
}

export function clusterRoleBinding(namespace: string, watched: readonly string[] = []): Rendered<V1ClusterRoleBinding> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: {
      name: watched.length > 0 ? clusterRoleName(watched, namespace) : clusterRoleBindingName(namespace),
      labels: operatorLabels(),
    },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRoleName(watched, namespace) },
    subjects: [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace }],
  };
}

export function leaderElectionRole(namespace: string): Rendered<V1Role> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: LEADER_ELECTION_ROLE_NAME, namespace, labels: operatorLabels() },
    rules: LEADER_ELECTION_RULES.map(policyRule),
  };
}

export function leaderElectionRoleBinding(namespace: string): Rendered<V1RoleBinding> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: LEADER_ELECTION_ROLE_NAME, namespace, labels: operatorLabels() },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: LEADER_ELECTION_ROLE_NAME },
    subjects: [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace }],
  };
}
