import { renderConfigMap } from './config-map.ts';
import { operatorWritesResourceSpec } from './flux-inputs.ts';
import { renderJob } from './job.ts';
import type { MiniClusterKeys } from './keys.ts';
import { ownerReference, type KubeObject, type Owner } from './kube-object.ts';
import type { DefaultedMiniCluster } from './model.ts';
import { miniClusterNames } from './names.ts';
import { renderRestfulService, servesRestful } from './restful.ts';
import { renderSecrets } from './secrets.ts';
import { hasServices, renderServicesDeployment } from './services.ts';
import { renderStorage } from './storage.ts';
import { exposesLeadBroker, renderLeadBrokerService, renderService, usesSharedService } from './service.ts';

export interface RenderOptions {
  /** Set when the MiniCluster exists in a cluster: every object gets a controller ownerReference. */
  readonly owner?: Owner;
}

/**
 * Every object a MiniCluster needs, in the order to create them: config, Secrets and storage first
 * (the pods mount them), then the Service (so names resolve as pods start), the services pod, then
 * the Job.
 * A pure function: the same MiniCluster and keys give the same objects.
 */
export function renderMiniCluster(
  miniCluster: DefaultedMiniCluster,
  keys: MiniClusterKeys,
  options: RenderOptions = {},
): KubeObject[] {
  const names = miniClusterNames(miniCluster);
  const objects: KubeObject[] = [
    renderConfigMap(miniCluster, names),
    ...renderSecrets(miniCluster, names, keys),
    // A MiniCluster connecting to another through a shared selector uses the first one's Service.
    ...(usesSharedService(miniCluster) ? [] : [renderService(miniCluster, names)]),
    ...(exposesLeadBroker(miniCluster) ? [renderLeadBrokerService(miniCluster, names)] : []),
    // Services start with the brokers' network, before the brokers that may need them.
    ...(hasServices(miniCluster) ? [renderServicesDeployment(miniCluster, names)] : []),
    ...(servesRestful(miniCluster) ? [renderRestfulService(miniCluster, names)] : []),
    renderJob(miniCluster, names, operatorWritesResourceSpec(miniCluster)),
  ];
  if (options.owner) {
    const reference = ownerReference(options.owner);
    for (const object of objects) object.metadata.ownerReferences = [{ ...reference }];
  }
  // Storage decides its own ownership: some of it outlives the MiniCluster by design.
  const storage = renderStorage(miniCluster, options.owner);
  return [...objects.slice(0, -1), ...storage, ...objects.slice(-1)];
}
