/**
 * Every label and annotation key the operator reads or writes, in one place (as jobset does), with the
 * small pure helpers that build the label sets from a MiniCluster name.
 */

/** Kubernetes recommended label: the application. Not plain "flux", which FluxCD selectors also use. */
export const LABEL_APP_NAME = 'app.kubernetes.io/name';
export const APP_NAME = 'flux-minicluster';

/** Kubernetes recommended label: the MiniCluster's name. */
export const LABEL_APP_INSTANCE = 'app.kubernetes.io/instance';

/** Kubernetes recommended label: which part of the MiniCluster an object is (see COMPONENT_*). */
export const LABEL_APP_COMPONENT = 'app.kubernetes.io/component';
export const COMPONENT_BROKER = 'broker';
export const COMPONENT_LEAD_BROKER_SERVICE = 'lead-broker-service';
export const COMPONENT_HEADLESS_SERVICE = 'headless-service';
export const COMPONENT_CONFIG = 'config';
/** The pod of `spec.services` (and its Deployment): on the MiniCluster's network, never a broker. */
export const COMPONENT_SERVICES = 'services';
/** The RESTful API's Service and the Secret of its credentials. */
export const COMPONENT_RESTFUL = 'restful';
export const COMPONENT_STORAGE = 'storage';

/** Kubernetes recommended label: the tool that manages the object. */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'flux-operator';

/**
 * The MiniCluster a pod belongs to, under our own group so that no other application's
 * `app.kubernetes.io/instance` label can make a selector match foreign pods.
 */
export const LABEL_MINICLUSTER = 'flux-framework.org/minicluster';

/**
 * On the PersistentVolumes the operator makes for `spec.volumes`: cluster-scoped, they cannot have
 * the namespaced MiniCluster as owner, so these labels say whose they are and whether they go with
 * it (the volume collector, src/controllers/minicluster/volume-collector.ts, reads them).
 */
export const LABEL_MINICLUSTER_NAMESPACE = 'flux-framework.org/minicluster-namespace';
export const LABEL_MINICLUSTER_UID = 'flux-framework.org/minicluster-uid';
/** The `spec.volumes` entry a claim or PersistentVolume was made for. */
export const LABEL_VOLUME = 'flux-framework.org/volume';
/** "true" on a PersistentVolume that goes when its MiniCluster goes (`spec.volumes[].delete`). */
export const LABEL_DELETE_WITH_MINICLUSTER = 'flux-framework.org/delete-with-minicluster';

/** Set by the Job controller on pods of an Indexed Job: the pod's index, which is its Flux rank. */
export const LABEL_JOB_COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';

/** Set by the Job controller on the pods it creates: the Job's name. */
export const LABEL_JOB_NAME = 'batch.kubernetes.io/job-name';

/**
 * Kueue's labels (kueue.x-k8s.io): the LocalQueue a Job waits in, and its WorkloadPriorityClass. On
 * the MiniCluster (or in v1alpha2 spec.jobLabels, as Go operator users write them) they go to the Job,
 * which Kueue then suspends until it admits all of its pods at once (docs/kueue.md).
 */
export const LABEL_QUEUE_NAME = 'kueue.x-k8s.io/queue-name';
export const LABEL_KUEUE_PRIORITY_CLASS = 'kueue.x-k8s.io/priority-class';
/** Kueue's labels a MiniCluster passes on to its Job. */
export const QUEUE_LABEL_KEYS: readonly string[] = [LABEL_QUEUE_NAME, LABEL_KUEUE_PRIORITY_CLASS];

/** Hash of the rendered broker config on the pod template, so a config change rolls the pods. */
export const ANNOTATION_CONFIG_HASH = 'flux-framework.org/config-hash';

/**
 * Label keys the operator sets itself; user-supplied pod and job labels must not override them,
 * or the Service and the scale selector would stop matching the pods.
 */
export const RESERVED_LABEL_KEYS: readonly string[] = [
  LABEL_APP_NAME,
  LABEL_APP_INSTANCE,
  LABEL_APP_COMPONENT,
  LABEL_MANAGED_BY,
  LABEL_MINICLUSTER,
  LABEL_JOB_COMPLETION_INDEX,
  LABEL_JOB_NAME,
];

/**
 * Labels that select exactly the pods on one MiniCluster's network (the headless Service's
 * selector): its brokers, and its services pod when it has `spec.services`.
 */
export function selectorLabels(miniClusterName: string): Record<string, string> {
  return { [LABEL_APP_NAME]: APP_NAME, [LABEL_MINICLUSTER]: miniClusterName };
}

/** Labels that select the broker pods of one MiniCluster alone (what is counted, scaled, read). */
export function brokerSelectorLabels(miniClusterName: string): Record<string, string> {
  return { ...selectorLabels(miniClusterName), [LABEL_APP_COMPONENT]: COMPONENT_BROKER };
}

/**
 * The broker selector in the string form `status.selector` needs for the scale subresource, so an
 * autoscaler averages over the brokers and never over the services pod.
 */
export function selectorString(miniClusterName: string): string {
  return Object.entries(brokerSelectorLabels(miniClusterName))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** Every label the operator puts on an object it owns for a MiniCluster. */
export function commonLabels(miniClusterName: string, component: string): Record<string, string> {
  return {
    ...selectorLabels(miniClusterName),
    [LABEL_APP_INSTANCE]: miniClusterName,
    [LABEL_APP_COMPONENT]: component,
    [LABEL_MANAGED_BY]: MANAGED_BY,
  };
}
