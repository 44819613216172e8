/**
 * Installing the operator on a burst target's cluster (GKE/EKS clusters the operator made, and
 * kubeconfig targets with `installOperator`): its full install applied with server-side apply.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedBurstTarget } from '../api/index.ts';
import { serverSideApply } from '../kube/apply.ts';
import { apiClientsFor } from '../kube/clients.ts';
import { applyCrdKeepingClientConfig } from '../kube/conversion-client-config.ts';
import {
  DEFAULT_OPERATOR_IMAGE,
  FIELD_MANAGER,
  OPERATOR_NAMESPACE,
  installObjects,
} from '../deploy/index.ts';

/** Installs the operator on a provisioned cluster; throws when it cannot. */
export type InstallOperator = (config: KubeConfig, target: DefaultedBurstTarget) => Promise<void>;

export interface InstallOperatorOptions {
  /** Operator image; DEFAULT_OPERATOR_IMAGE (this version's release) when absent. */
  readonly image?: string;
  /** Namespace of the operator there; OPERATOR_NAMESPACE when absent. */
  readonly namespace?: string;
}

/**
 * Applies the operator's full install (`installObjects`: Namespace, CRDs, RBAC, Deployment) to the
 * cluster of `config` with server-side apply (field manager `flux-operator`), in order.
 */
export async function installOperatorObjects(
  config: KubeConfig,
  options: InstallOperatorOptions = {},
): Promise<void> {
  const clients = apiClientsFor(config);
  const api = clients.objects;
  const objects = installObjects({
    image: options.image ?? DEFAULT_OPERATOR_IMAGE,
    namespace: options.namespace ?? OPERATOR_NAMESPACE,
  });
  try {
    for (const object of objects) {
      const applyIt = (applied: KubernetesObject) => serverSideApply(api, applied, FIELD_MANAGER);
      // A CRD keeps the conversion webhook an operator pointed it at (see conversion-client-config.ts).
      if (object.kind === 'CustomResourceDefinition') {
        await applyCrdKeepingClientConfig(api, object as unknown as KubernetesObject, applyIt);
      } else await applyIt(object as unknown as KubernetesObject);
    }
  } finally {
    clients.transport.close();
  }
}
