/**
 * The MiniCluster controller's setup, in one place (as jobset's SetupWithManager): what it reconciles
 * and watches (`for` MiniCluster; `owns` its Jobs, Services, ConfigMaps, Secrets, Deployments, claims
 * and volumes; `watches` the broker pods, indexed by MiniCluster), the Reconciler and what it is given
 * (caches, event recorder, burst environment), and the collectors it runs while leading.
 */
import type { FluxQueueObserver } from './scale-step.ts';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  APP_NAME,
  COMPONENT_BROKER,
  LABEL_APP_COMPONENT,
  LABEL_APP_NAME,
  LABEL_MANAGED_BY,
  LABEL_MINICLUSTER,
  LABEL_MINICLUSTER_NAMESPACE,
  MANAGED_BY,
  namespaceOf,
} from '../../api/index.ts';
import { lazyExecQueueReader } from '../../burst/lazy-queue-reader.ts';
import type { ApiClients } from '../../kube/api-clients.ts';
import { describeApiError } from '../../kube/api-errors.ts';
import { fluxContainer, layoutOf, type KubeObject } from '../../render/index.ts';
import type { Controller, ControllerOptions } from '../../runtime/controller.ts';
import { EventRecorder } from '../../runtime/events.ts';
import type { ResilientInformer } from '../../runtime/informers.ts';
import type { Manager } from '../../runtime/manager.ts';
import { ObjectIndex } from '../../runtime/object-index.ts';
import { objectKey, splitObjectKey, type ObjectKey } from '../../runtime/object-key.ts';
import type { BurstEnvironment, ConnectedTarget } from './burst-step.ts';
import { MiniClusterCollectors } from './collectors.ts';
import { readMiniClusterStatus } from './minicluster-client.ts';
import { Reconciler } from './reconciler.ts';
import type { ReconcilerCache } from './reconciler-deps.ts';
import { leadBrokerEnded } from './status.ts';
import { watchedKinds } from './watched-kinds.ts';
import { readSecret } from '../../kube/secrets.ts';
import { REPORTING_CONTROLLER } from '../../deploy/constants.ts';

export const CONTROLLER_NAME = 'minicluster';
/** Pods and children of one MiniCluster change together: their events wait this long, folded into one pass. */
const CHILD_EVENT_DELAY_MS = 500;

/** The connected BurstTargets, as the BurstTarget controller knows them. */
export interface BurstTargets {
  connectionFor(namespace: string, targetName: string): ConnectedTarget | undefined;
  connectedTargets(): readonly ConnectedTarget[];
}

export interface MiniClusterSetupOptions {
  readonly clients: ApiClients;
  readonly concurrency: number;
  readonly targets: BurstTargets;
  readonly onReconcile?: ControllerOptions['onReconcile'];
  readonly onQueueDepth?: ControllerOptions['onQueueDepth'];
  /** The time of each named step of a pass (the reconcile step histogram). */
  readonly onReconcileStep?: (step: string, seconds: number) => void;
  /** A MiniCluster's Flux queue as read (undefined: no longer read), for the metrics. */
  readonly onFluxQueue?: FluxQueueObserver;
  /** How to read a lead broker's queue; default: exec `flux` in the lead pod. */
  readonly queueReader?: BurstEnvironment['queueReader'];
  /** The Flux view image of MiniClusters that name none (flux.container.image). */
  readonly fluxViewImage?: string;
  /** Namespaces allowed host storage besides those labelled (the Helm value hostStorageNamespaces). */
  readonly hostStorageNamespaces?: readonly string[];
}

export interface MiniClusterController {
  readonly controller: Controller;
  readonly collectors: MiniClusterCollectors;
}

/**
 * The MiniCluster an object belongs to, by its labels. Cluster-wide objects (PersistentVolumes) name
 * their MiniCluster's namespace in a label.
 */
function ownerOf(object: KubernetesObject): ObjectKey | undefined {
  const name = object.metadata?.labels?.[LABEL_MINICLUSTER];
  const namespace = object.metadata?.namespace ?? object.metadata?.labels?.[LABEL_MINICLUSTER_NAMESPACE];
  return name && namespace ? objectKey(namespace, name) : undefined;
}

/** This cluster's identity: the uid of its kube-system namespace (stable for the cluster's life). */
async function readClusterId(clients: ApiClients, log: Logger): Promise<string | undefined> {
  try {
    return (await clients.core.readNamespace({ name: 'kube-system' })).metadata?.uid;
  } catch (error) {
    log.warn(
      { error: describeApiError(error) },
      'cannot read the kube-system namespace: burst orphans will not be collected',
    );
    return undefined;
  }
}

export function setupMiniClusterController(
  manager: Manager,
  options: MiniClusterSetupOptions,
): MiniClusterController {
  const { clients } = options;
  const { log } = manager;
  const kinds = watchedKinds(clients);
  let clusterId: string | undefined;
  manager.add(
    {
      start: async () => {
        clusterId = await readClusterId(clients, log);
      },
      stop: () => undefined,
    },
    { leaderOnly: false },
  );

  const collectors = new MiniClusterCollectors({
    clients,
    log,
    namespaces: manager.namespaces,
    ready: () => manager.isLeader && manager.synced,
    clusterId: () => clusterId,
    livingUids: () =>
      new Set(miniClusters.list().flatMap((mc) => (mc.metadata.uid ? [mc.metadata.uid] : []))),
    connectedTargets: () => options.targets.connectedTargets(),
  });
  manager.add(collectors);

  const controller = manager.controller({
    name: CONTROLLER_NAME,
    concurrency: options.concurrency,
    reconcile: (key, reconcileLog) => reconciler.reconcile(key, reconcileLog),
    ownerOf,
    eventDelayMs: CHILD_EVENT_DELAY_MS,
    confirmGone: async (key) => {
      const { namespace, name } = splitObjectKey(key);
      return (await readMiniClusterStatus(clients, namespace, name)) === undefined;
    },
    ...(options.onReconcile ? { onReconcile: options.onReconcile } : {}),
    ...(options.onQueueDepth ? { onQueueDepth: options.onQueueDepth } : {}),
  });

  // What the controller watches. A child's change (the Job's counts move with every pod) is folded
  // with its siblings' and the pods' into one pass (docs/performance.md: writes per MiniCluster).
  const owned = { labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY}` };
  const miniClusters = controller.for(kinds.miniClusters, {
    onDelete: (mc) => {
      if (mc.spec.volumes !== undefined) collectors.collectVolumesSoon();
    },
  });
  const jobs = controller.owns(kinds.jobs, owned);
  const services = controller.owns(kinds.services, owned);
  const configMaps = controller.owns(kinds.configMaps, owned);
  const secrets = controller.owns(kinds.secrets, owned);
  const deployments = controller.owns(kinds.deployments, owned);
  const claims = controller.owns(kinds.persistentVolumeClaims, owned);
  const persistentVolumes = controller.owns(kinds.persistentVolumes, { ...owned, clusterWide: true });
  // Broker pods only: the services pod shares the MiniCluster's network labels, never its count.
  const pods = new ObjectIndex<V1Pod>(ownerOf);
  controller.watches(kinds.pods, {
    labelSelector: `${LABEL_APP_NAME}=${APP_NAME},${LABEL_APP_COMPONENT}=${COMPONENT_BROKER}`,
    map: ownerOf,
    // The lead broker's end is the MiniCluster's outcome: told at once, not folded with its siblings.
    urgent: leadBrokerEnded,
    handlers: {
      onAdd: (pod) => pods.set(pod),
      onUpdate: (pod) => pods.set(pod),
      onDelete: (pod) => pods.delete(pod),
    },
  });

  const child = <T extends KubernetesObject>(informer: ResilientInformer<T>) =>
    informer as unknown as ResilientInformer<KubeObject>;
  const cache: ReconcilerCache = {
    miniClusters,
    jobs,
    secrets,
    children: new Map([
      ['Job', child(jobs)],
      ['Service', child(services)],
      ['ConfigMap', child(configMaps)],
      ['Secret', child(secrets)],
      ['Deployment', child(deployments)],
      ['PersistentVolumeClaim', child(claims)],
      ['PersistentVolume', child(persistentVolumes)],
    ]),
    podsOf: (namespace, name) => pods.list(objectKey(namespace, name)),
  };
  const recorder = new EventRecorder({
    api: clients.events,
    controller: REPORTING_CONTROLLER,
    instance: manager.identity,
    onError: (error) => log.warn({ error: describeApiError(error) }, 'could not record an event'),
  });
  const burst: BurstEnvironment = {
    localClients: clients,
    target: (namespace, name) => {
      const connection = options.targets.connectionFor(namespace, name);
      if (!connection) return undefined;
      const { clients: targetClients, namespace: targetNamespace, queueName } = connection;
      return {
        clients: targetClients,
        namespace: targetNamespace,
        ...(queueName === undefined ? {} : { queueName }),
      };
    },
    queueReader:
      options.queueReader ??
      ((miniCluster, leadPod) => {
        // The instance's socket is in the pod's run folder (the view's volume with a Flux view), and
        // a view's flux is in its command folder.
        const layout = layoutOf(miniCluster);
        return lazyExecQueueReader(clients.transport.access, {
          namespace: namespaceOf(leadPod),
          podName: leadPod.metadata?.name ?? '',
          container: fluxContainer(miniCluster).name,
          fluxUri: `local://${layout.runDir}/local`,
          ...(layout.view ? { fluxDir: layout.view.commandDir } : {}),
        });
      }),
    readSecret: (name, namespace) => readSecret({ cache: secrets, core: clients.core }, name, namespace),
    now: () => new Date(),
    clusterId: () => clusterId,
  };
  const reconciler = new Reconciler({
    clients,
    cache,
    recorder,
    now: () => new Date(),
    burst,
    ...(options.onReconcileStep ? { observeStep: options.onReconcileStep } : {}),
    ...(options.onFluxQueue ? { observeFluxQueue: options.onFluxQueue } : {}),
    ...(options.fluxViewImage ? { fluxViewImage: options.fluxViewImage } : {}),
    ...(options.hostStorageNamespaces ? { hostStorageNamespaces: options.hostStorageNamespaces } : {}),
  });
  return { controller, collectors };
}
