import { KubeConfig } from '@kubernetes/client-node';
import { apiClients, type ApiClients, type ApiClientsOptions } from './api-clients.ts';
import { accessFromClientConfig } from './cluster-access.ts';

/**
 * A kubeconfig from the given file, or else the usual places: $KUBECONFIG, ~/.kube/config, or the
 * in-cluster service account. Throws with a message naming where it looked.
 */
export function loadKubeConfig(file?: string): KubeConfig {
  const config = new KubeConfig();
  if (file !== undefined) config.loadFromFile(file);
  else config.loadFromDefault();
  if (!config.getCurrentCluster()) {
    throw new Error(
      file !== undefined
        ? `kubeconfig ${file} has no current cluster`
        : 'no cluster configured: set --kubeconfig, $KUBECONFIG or ~/.kube/config',
    );
  }
  return config;
}

/** The API clients (the operator's transport) for the cluster of an official client's KubeConfig. */
export function apiClientsFor(config: KubeConfig, options: ApiClientsOptions = {}): ApiClients {
  return apiClients(accessFromClientConfig(config), options);
}
