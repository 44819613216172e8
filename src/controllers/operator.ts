/**
 * The operator process: the runtime's manager (caches, leader election, outage recovery) with both
 * controllers set up on it, the BurstTarget controller and the MiniCluster controller. The CLI, the
 * quickstart, tests and benchmarks make one of these; what each controller watches is in its setup.
 */
import type { FluxQueueObserver } from './minicluster/scale-step.ts';
import type { Logger } from 'pino';
import type { ApiClients } from '../kube/api-clients.ts';
import { Manager, type LeaderElectionConfig } from '../runtime/manager.ts';
import type { BurstTargetControllerOptions } from './burst-target/burst-target-controller.ts';
import { setupBurstTargetController } from './burst-target/setup.ts';
import type { BurstEnvironment } from './minicluster/burst-step.ts';
import type { OrphanSweep } from './minicluster/orphans.ts';
import type { AnsweredRequest } from '../kube/transport.ts';
import { setupMiniClusterController, type MiniClusterController } from './minicluster/setup.ts';
import { setupConversionWebhook, type ConversionWebhookSettings } from './conversion/setup.ts';
import type { ConversionWebhook } from './conversion/webhook.ts';
import { setupStorageVersionMigration, type StorageMigrationSettings } from './storage-migration/setup.ts';

export { CONTROLLER_NAME } from './minicluster/setup.ts';

export interface OperatorOptions {
  readonly clients: ApiClients;
  readonly log: Logger;
  /** Namespaces to watch; empty for all. */
  readonly namespaces: readonly string[];
  /** MiniClusters reconciled in parallel. */
  readonly concurrency: number;
  readonly leaderElection?: LeaderElectionConfig;
  /** Sees every request to a burst target's cluster, with its API server URL (the metrics). */
  readonly onTargetRequest?: (request: AnsweredRequest, server: string) => void;
  /** Called after each MiniCluster reconcile with its duration and outcome (metrics). */
  readonly onReconcile?: (result: 'success' | 'error' | 'requeue_after', seconds: number) => void;
  readonly onLeadershipChange?: (leading: boolean) => void;
  readonly onQueueDepth?: (depth: number) => void;
  /** The time of each named step of a MiniCluster pass (the reconcile step histogram). */
  readonly onReconcileStep?: (step: string, seconds: number) => void;
  /** A MiniCluster's Flux queue as read (undefined: no longer read), for flux_operator_flux_* metrics. */
  readonly onFluxQueue?: FluxQueueObserver;
  /** Connectors of the GKE and EKS providers for BurstTargets of those kinds. */
  readonly providers?: BurstTargetControllerOptions['providers'];
  /** Deletes the cloud cluster of a deleted gke/eks BurstTarget, one step per call. */
  readonly deleteProvisioned?: BurstTargetControllerOptions['deleteProvisioned'];
  /** Installs the operator on kubeconfig BurstTargets with installOperator. */
  readonly installOperator?: BurstTargetControllerOptions['installOperator'];
  /** How often BurstTargets are checked (tests shorten it). */
  readonly targetSchedule?: BurstTargetControllerOptions['schedule'];
  /** How to read a lead broker's queue; default: exec `flux` in the lead pod. */
  readonly queueReader?: BurstEnvironment['queueReader'];
  /**
   * Serve the v1alpha1 <-> v1alpha2 conversion webhook and keep the CRD pointed at it. Without it
   * another process serves the conversions (tests share one; see test/harness/conversion-webhook.ts).
   */
  readonly conversionWebhook?: ConversionWebhookSettings;
  /**
   * The pacing and retry of the storage-version migration (rewrites MiniClusters stored as v1alpha1,
   * then drops v1alpha1 from the CRD's status.storedVersions); it runs whenever this operator leads.
   */
  readonly storageMigration?: StorageMigrationSettings;
  /** The Flux view image of MiniClusters that name none (flux.container.image); unset: the API's default. */
  readonly fluxViewImage?: string;
  /** Namespaces allowed host storage besides those labelled (the Helm value hostStorageNamespaces). */
  readonly hostStorageNamespaces?: readonly string[];
}

export class Operator {
  readonly manager: Manager;
  /** The conversion webhook, when this operator serves it. */
  readonly conversionWebhook: ConversionWebhook | undefined;
  private readonly miniClusters: MiniClusterController;

  constructor(options: OperatorOptions) {
    const { clients } = options;
    this.manager = new Manager({
      clients,
      log: options.log,
      namespaces: options.namespaces,
      ...(options.leaderElection ? { leaderElection: options.leaderElection } : {}),
      ...(options.onLeadershipChange ? { onLeadershipChange: options.onLeadershipChange } : {}),
    });
    // Added first: its first pass runs before the caches list MiniClusters through it.
    this.conversionWebhook = options.conversionWebhook
      ? setupConversionWebhook(this.manager, clients.transport, options.log, options.conversionWebhook)
      : undefined;
    // Leader-only, so it starts after the webhook above serves the conversions its rewrites need.
    setupStorageVersionMigration(this.manager, clients.transport, options.log, options.storageMigration);
    const targets = setupBurstTargetController(this.manager, {
      clients,
      ...(options.onTargetRequest ? { onTargetRequest: options.onTargetRequest } : {}),
      ...(options.providers ? { providers: options.providers } : {}),
      ...(options.deleteProvisioned ? { deleteProvisioned: options.deleteProvisioned } : {}),
      ...(options.installOperator ? { installOperator: options.installOperator } : {}),
      ...(options.targetSchedule ? { schedule: options.targetSchedule } : {}),
      // A target that connects (or drops) changes what the MiniClusters of its namespace can do.
      onConnectionChange: (namespace) => this.miniClusters.controller.enqueueAll(namespace),
    });
    this.miniClusters = setupMiniClusterController(this.manager, {
      clients,
      concurrency: options.concurrency,
      targets,
      ...(options.onReconcile ? { onReconcile: options.onReconcile } : {}),
      ...(options.onQueueDepth ? { onQueueDepth: options.onQueueDepth } : {}),
      ...(options.onReconcileStep ? { onReconcileStep: options.onReconcileStep } : {}),
      ...(options.onFluxQueue ? { onFluxQueue: options.onFluxQueue } : {}),
      ...(options.queueReader ? { queueReader: options.queueReader } : {}),
      ...(options.fluxViewImage ? { fluxViewImage: options.fluxViewImage } : {}),
      ...(options.hostStorageNamespaces ? { hostStorageNamespaces: options.hostStorageNamespaces } : {}),
    });
  }

  get identity(): string {
    return this.manager.identity;
  }

  /** True once every cache has listed once. */
  get synced(): boolean {
    return this.manager.synced;
  }

  /** Ready to serve conversions (true when this operator does not serve them). */
  get webhookReady(): boolean {
    return this.conversionWebhook?.ready ?? true;
  }

  /**
   * The API server has been seen converting a v1alpha1 MiniCluster through this operator's webhook
   * (true when this operator serves none: another process holds the conversions).
   */
  get apiServerConverts(): boolean {
    return this.conversionWebhook?.apiServerConverts ?? true;
  }

  /** Why `apiServerConverts` is false. */
  get conversionProblem(): string | undefined {
    return this.apiServerConverts ? undefined : this.conversionWebhook?.conversionProblem;
  }

  async start(): Promise<void> {
    await this.manager.start();
  }

  async stop(): Promise<void> {
    // First: the webhook keeps answering while the rest stops and its Service stops sending here.
    this.conversionWebhook?.beginDrain();
    await this.manager.stop();
  }

  /** Resolves when no reconcile is queued or running (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.manager.idle();
  }

  /** Removes the burst objects of gone MiniClusters, here and on connected targets (tests call it). */
  collectOrphans(): Promise<OrphanSweep[]> {
    return this.miniClusters.collectors.collectOrphans();
  }

  /** Deletes the volumes (delete: true) of gone MiniClusters (tests call it). */
  collectVolumes(): Promise<string[]> {
    return this.miniClusters.collectors.collectVolumes();
  }
}
