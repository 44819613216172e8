/** Every object of the operator's install, in apply order. Pure: built from constants and options. */
import type { V1Namespace } from '@kubernetes/client-node';
import { CONVERSION_WEBHOOK_PATH, burstTargetCrd, miniClusterCrd } from '../api/index.ts';
import type { CustomResourceDefinition } from '../api/index.ts';
import type { Rendered } from '../render/kube-object.ts';
import {
  DEFAULT_OPERATOR_IMAGE,
  OPERATOR_NAMESPACE,
  WEBHOOK_SERVICE_NAME,
  WEBHOOK_SERVICE_PORT,
  operatorLabels,
} from './constants.ts';
import {
  operatorDeployment,
  operatorDisruptionBudget,
  webhookService,
  type DeploymentOptions,
} from './deployment.ts';
import { hostStorageNamespace, hostStoragePolicy, hostStoragePolicyBinding } from './host-storage-policy.ts';
import {
  clusterRole,
  metricsReaderClusterRole,
  clusterRoleBinding,
  leaderElectionRole,
  leaderElectionRoleBinding,
  serviceAccount,
  watchedNamespaceRole,
  watchedNamespaceRoleBinding,
  webhookSecretRole,
  webhookSecretRoleBinding,
} from './rbac.ts';

/** Any object of the install (the CRD's own type is not a client model, hence the loose type). */
export type InstallObject = Rendered<object>;

export interface InstallObjectsOptions {
  /** Operator image; DEFAULT_OPERATOR_IMAGE (this version's release) when absent. */
  readonly image?: string;
  /** Namespace of the operator; OPERATOR_NAMESPACE when absent. */
  readonly namespace?: string;
  readonly replicas?: number;
  readonly watchNamespaces?: DeploymentOptions['watchNamespaces'];
  readonly nodeSelector?: DeploymentOptions['nodeSelector'];
  readonly tolerations?: DeploymentOptions['tolerations'];
  readonly fluxViewImage?: DeploymentOptions['fluxViewImage'];
  readonly leaveCrdConversion?: DeploymentOptions['leaveCrdConversion'];
  /** Namespaces labelled to allow host storage (hostpath and CSI volumes; docs/security.md). */
  readonly allowHostStorage?: readonly string[];
}

/**
 * The MiniCluster CRD of an install in `namespace`: conversions go to that install's webhook Service.
 * Its caBundle is left out: the operator writes it from the CA it makes (and renews).
 */
export function installedMiniClusterCrd(namespace: string): CustomResourceDefinition {
  return miniClusterCrd({
    service: {
      namespace,
      name: WEBHOOK_SERVICE_NAME,
      path: CONVERSION_WEBHOOK_PATH,
      port: WEBHOOK_SERVICE_PORT,
    },
  });
}

/**
 * The operator's namespace, labelled so Pod Security admission enforces the "restricted" profile
 * there (the operator's pod complies).
 */
export function operatorNamespace(name: string): Rendered<V1Namespace> {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      labels: {
        ...operatorLabels(),
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/enforce-version': 'latest',
      },
    },
  };
}

/**
 * Everything but the Deployment: the Namespace, the CRDs (MiniCluster, BurstTarget), the host
 * storage admission policy, the RBAC and the ServiceAccount, and the namespaces allowed host storage.
 * Enough for an operator run from outside the cluster (`flux-operator run --kubeconfig ...`) by a
 * user bound to the ClusterRole, and the base of a full install. With watched namespaces, what the
 * operator may do in namespaces is a Role in each of them, and the ClusterRole keeps only what must
 * be cluster-wide (docs/security.md).
 */
export function crdAndRbacObjects(
  options: Pick<InstallObjectsOptions, 'namespace' | 'watchNamespaces' | 'allowHostStorage'> = {},
): InstallObject[] {
  const namespace = options.namespace ?? OPERATOR_NAMESPACE;
  const watched = [...new Set(options.watchNamespaces ?? [])];
  return [
    operatorNamespace(namespace),
    installedMiniClusterCrd(namespace) as unknown as InstallObject,
    burstTargetCrd() as unknown as InstallObject,
    hostStoragePolicy(),
    hostStoragePolicyBinding(),
    ...[...new Set(options.allowHostStorage ?? [])].map(hostStorageNamespace),
    clusterRole(watched, namespace),
    metricsReaderClusterRole(),
    serviceAccount(namespace),
    clusterRoleBinding(namespace, watched),
    ...watched.flatMap((name) => [
      watchedNamespaceRole(name, namespace),
      watchedNamespaceRoleBinding(name, namespace),
    ]),
    webhookSecretRole(namespace),
    webhookSecretRoleBinding(namespace),
    leaderElectionRole(namespace),
    leaderElectionRoleBinding(namespace),
  ];
}

/**
 * The full install: crdAndRbacObjects(), the conversion webhook's Service, the operator's Deployment
 * and, with more than one replica, its PodDisruptionBudget.
 */
export function installObjects(options: InstallObjectsOptions = {}): InstallObject[] {
  const namespace = options.namespace ?? OPERATOR_NAMESPACE;
  const deploymentOptions: DeploymentOptions = {
    image: options.image ?? DEFAULT_OPERATOR_IMAGE,
    namespace,
    ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
    ...(options.watchNamespaces === undefined ? {} : { watchNamespaces: options.watchNamespaces }),
    ...(options.nodeSelector === undefined ? {} : { nodeSelector: options.nodeSelector }),
    ...(options.tolerations === undefined ? {} : { tolerations: options.tolerations }),
    ...(options.fluxViewImage === undefined ? {} : { fluxViewImage: options.fluxViewImage }),
    ...(options.leaveCrdConversion ? { leaveCrdConversion: true } : {}),
  };
  return [
    ...crdAndRbacObjects({
      namespace,
      ...(options.watchNamespaces === undefined ? {} : { watchNamespaces: options.watchNamespaces }),
      ...(options.allowHostStorage === undefined ? {} : { allowHostStorage: options.allowHostStorage }),
    }),
    webhookService(namespace),
    operatorDeployment(deploymentOptions),
    ...((options.replicas ?? 1) > 1 ? [operatorDisruptionBudget(namespace)] : []),
  ];
}
