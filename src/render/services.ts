import type { V1Deployment, V1PodSpec, V1Volume } from '@kubernetes/client-node';
import {
  COMPONENT_SERVICES,
  LABEL_APP_COMPONENT,
  LABEL_APP_NAME,
  LABEL_MINICLUSTER,
  APP_NAME,
  commonLabels,
} from '../api/index.ts';
import { podMetadata, renderContainer, setPodPlacement, storageOf } from './job.ts';
import type { Rendered } from './kube-object.ts';
import type { DefaultedMiniCluster } from './model.ts';
import { namespaceOf, type MiniClusterNames } from './names.ts';
import { containerVolumes } from './volumes.ts';

/** Whether the MiniCluster runs service containers (v1alpha1 `spec.services`). */
export function hasServices(miniCluster: DefaultedMiniCluster): boolean {
  return (miniCluster.spec.services?.length ?? 0) > 0;
}

function servicesPodSpec(miniCluster: DefaultedMiniCluster, names: MiniClusterNames): V1PodSpec {
  const { spec } = miniCluster;
  const services = spec.services ?? [];
  const storage = storageOf(miniCluster);
  const volumes: V1Volume[] = [];
  const seenVolumes = new Set<string>();
  const containers = services.map((service) => {
    const own = containerVolumes(service, storage);
    for (const volume of own.volumes) {
      // Two services may mount the same named volume; the pod declares it once.
      if (!seenVolumes.has(volume.name)) volumes.push(volume);
      seenVolumes.add(volume.name);
    }
    return renderContainer({ ...service, runFlux: false }, own.mounts);
  });
  const pullSecrets = [...new Set(services.flatMap((s) => (s.imagePullSecret ? [s.imagePullSecret] : [])))];
  const pod: V1PodSpec = {
    // `<name>-services.<headless Service>`: the name v1alpha1 manifests use to reach their services.
    hostname: names.services,
    subdomain: names.service,
    setHostnameAsFQDN: false,
    enableServiceLinks: false,
    containers,
  };
  if (volumes.length > 0) pod.volumes = volumes;
  setPodPlacement(pod, miniCluster, pullSecrets);
  return pod;
}

/**
 * The services pod, as a Deployment of one replica: a pod that comes back when it is evicted or
 * fails, and rolls when the services change (a bare pod's spec cannot change). It carries the
 * labels the headless Service selects (or the shared selector), so its host name resolves, but the
 * component `services`, so nothing that counts, scales or reads the brokers ever sees it. Recreate,
 * not a rolling update: two pods must never hold the one host name at once.
 */
export function renderServicesDeployment(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
): Rendered<V1Deployment> {
  const { metadata } = miniCluster;
  const labels = commonLabels(metadata.name, COMPONENT_SERVICES);
  const template: NonNullable<V1Deployment['spec']>['template'] = {
    metadata: podMetadata(miniCluster, labels),
    spec: servicesPodSpec(miniCluster, names),
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.services, namespace: namespaceOf(miniCluster), labels },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: {
        matchLabels: {
          [LABEL_APP_NAME]: APP_NAME,
          [LABEL_MINICLUSTER]: metadata.name,
          [LABEL_APP_COMPONENT]: COMPONENT_SERVICES,
        },
      },
      template,
    },
  };
}
