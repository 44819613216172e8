import {
  AppsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
} from '@kubernetes/client-node';
import { apiClients, type ApiClients } from './api-clients.ts';
import { accessFromClientConfig } from './cluster-access.ts';
import { poolConnections } from './connection-pool.ts';
import { ObjectApi } from './object-api.ts';

/** The API clients the operator uses, all from one kubeconfig. */
export interface KubeClients {
  readonly config: KubeConfig;
  readonly objects: ObjectApi;
  readonly core: CoreV1Api;
  readonly batch: BatchV1Api;
  /** Deployments: the services pod of MiniClusters with `spec.services`. */
  readonly apps: AppsV1Api;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationV1Api;
  readonly events: EventsV1Api;
}

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

/** The clients over `config`, which from here on shares one connection pool (watches too). */
export function kubeClients(config: KubeConfig): KubeClients {
  poolConnections(config);
  return {
    config,
    objects: ObjectApi.forConfig(config),
    core: config.makeApiClient(CoreV1Api),
    batch: config.makeApiClient(BatchV1Api),
    apps: config.makeApiClient(AppsV1Api),
    custom: config.makeApiClient(CustomObjectsApi),
    coordination: config.makeApiClient(CoordinationV1Api),
    events: config.makeApiClient(EventsV1Api),
  };
}

/** The operator's own clients (its transport, not the client's) for the cluster of `config`. */
export function operatorClients(config: KubeConfig): ApiClients {
  return apiClients(accessFromClientConfig(config));
}
