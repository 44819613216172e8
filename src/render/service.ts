import type { V1Service } from '@kubernetes/client-node';
import {
  COMPONENT_HEADLESS_SERVICE,
  commonLabels,
  selectorLabels,
  type DefaultedMiniCluster,
} from '../api/index.ts';
import { DEFAULT_BROKER_PORT } from '../flux/index.ts';
import { namespaceOf } from './flux-inputs.ts';
import type { Rendered } from './kube-object.ts';
import type { MiniClusterNames } from './names.ts';

/**
 * The headless Service that gives every pod the DNS name `<job>-<index>.<service>.<namespace>.svc`.
 * It selects this MiniCluster's pods only, unless `network.sharedSelector` connects MiniClusters.
 */
export function renderService(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
): Rendered<V1Service> {
  const { name } = miniCluster.metadata;
  const shared = miniCluster.spec.network.sharedSelector;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: names.service,
      namespace: namespaceOf(miniCluster),
      labels: commonLabels(name, COMPONENT_HEADLESS_SERVICE),
    },
    spec: {
      clusterIP: 'None',
      selector: shared && Object.keys(shared).length > 0 ? { ...shared } : selectorLabels(name),
      // Brokers resolve each other while they start, before any readiness is known.
      publishNotReadyAddresses: true,
      ports: [
        { name: 'flux-broker', port: DEFAULT_BROKER_PORT, targetPort: DEFAULT_BROKER_PORT, protocol: 'TCP' },
      ],
    },
  };
}
