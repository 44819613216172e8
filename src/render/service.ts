import type { V1Service } from '@kubernetes/client-node';
import {
  COMPONENT_HEADLESS_SERVICE,
  COMPONENT_LEAD_BROKER_SERVICE,
  LABEL_JOB_COMPLETION_INDEX,
  commonLabels,
  selectorLabels,
} from '../api/index.ts';
import { DEFAULT_BROKER_PORT } from '../flux/index.ts';
import type { Rendered } from './kube-object.ts';
import type { DefaultedMiniCluster } from './model.ts';
import { namespaceOf, type MiniClusterNames } from './names.ts';

/**
 * The headless Service that gives every pod the DNS name `<job>-<index>.<service>.<namespace>.svc`.
 * It selects this MiniCluster's pods only, unless `network.sharedSelector` connects MiniClusters;
 * with `flux.minimalService`, the lead broker's pod only (the others connect to it alone).
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
      selector: {
        ...(shared && Object.keys(shared).length > 0 ? shared : selectorLabels(name)),
        ...(miniCluster.spec.flux.minimalService === true ? { [LABEL_JOB_COMPLETION_INDEX]: '0' } : {}),
      },
      // Brokers resolve each other while they start, before any readiness is known.
      publishNotReadyAddresses: true,
      ports: [
        { name: 'flux-broker', port: DEFAULT_BROKER_PORT, targetPort: DEFAULT_BROKER_PORT, protocol: 'TCP' },
      ],
    },
  };
}

/** The local side of bursting: clusters declared here will join this MiniCluster's lead broker. */
export function exposesLeadBroker(miniCluster: DefaultedMiniCluster): boolean {
  const bursting = miniCluster.spec.flux.bursting;
  return (
    (bursting?.clusters?.length ?? 0) > 0 &&
    bursting?.leadBroker === undefined &&
    miniCluster.spec.flux.bootServer === undefined
  );
}

/**
 * The Service that lets brokers of other clusters reach the lead broker: it selects pod index 0
 * only, on the broker port, as a NodePort (any node's address) or a LoadBalancer.
 */
export function renderLeadBrokerService(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
): Rendered<V1Service> {
  const { name } = miniCluster.metadata;
  const exposure = miniCluster.spec.flux.bursting?.expose;
  const type = exposure?.type ?? 'NodePort';
  const port: NonNullable<V1Service['spec']>['ports'] = [
    { name: 'flux-broker', port: DEFAULT_BROKER_PORT, targetPort: DEFAULT_BROKER_PORT, protocol: 'TCP' },
  ];
  const [brokerPort] = port;
  if (brokerPort && exposure?.nodePort !== undefined) brokerPort.nodePort = exposure.nodePort;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: names.leadBrokerService,
      namespace: namespaceOf(miniCluster),
      labels: commonLabels(name, COMPONENT_LEAD_BROKER_SERVICE),
    },
    spec: {
      type,
      selector: { ...selectorLabels(name), [LABEL_JOB_COMPLETION_INDEX]: '0' },
      // The lead broker is one pod: keep connections on the node that has it (and its client address).
      externalTrafficPolicy: 'Local',
      ports: port,
    },
  };
}

/** A MiniCluster that joins another through a shared selector: that one renders the one Service. */
export function usesSharedService(miniCluster: DefaultedMiniCluster): boolean {
  const shared = miniCluster.spec.network.sharedSelector;
  return (
    miniCluster.spec.flux.bootServer !== undefined && shared !== undefined && Object.keys(shared).length > 0
  );
}
