/** Spec -> Kubernetes objects: pure functions of a defaulted MiniCluster and its keys. */
export { renderMiniCluster } from './minicluster.ts';
export { layoutOf, usesFluxView } from './layout.ts';
export type { RenderOptions } from './minicluster.ts';
export { generateMiniClusterKeys, KEY_GENERATOR } from './keys.ts';
export type { MiniClusterKeys } from './keys.ts';
export { miniClusterNames, dnsLabel, DNS_LABEL_MAX } from './names.ts';
export type { MiniClusterNames } from './names.ts';
export { ownerReference } from './kube-object.ts';
export type { KubeObject, Owner } from './kube-object.ts';
export { brokerHosts, brokerHostEntries, fluxContainer, joinsAnotherInstance } from './flux-inputs.ts';
export { exposesLeadBroker } from './service.ts';
export { queueLabels, queueNameOf, withQueueLabels } from './queue.ts';
export { hasServices } from './services.ts';
export {
  renderRestfulSecret,
  renderRestfulService,
  restfulCredentials,
  restfulPort,
  servesRestful,
} from './restful.ts';
export type { RestfulCredentials } from './restful.ts';
export { makesPersistentVolume, persistentVolumeName, renderStorage, storageClaimName } from './storage.ts';
