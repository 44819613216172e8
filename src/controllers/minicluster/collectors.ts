/**
 * The MiniCluster controller's collectors as one periodic runnable, run while this instance leads:
 * every five minutes the orphan sweep (burst MiniClusters and copied Secrets this cluster made whose
 * MiniCluster is gone, here and on every connected BurstTarget), then the volume collection (the
 * PersistentVolumes of `spec.volumes` with delete: true of MiniClusters that are gone) a second later.
 * Volumes are also collected a second after taking the lead (MiniClusters deleted while no operator
 * led) and after each burst of such deletions.
 */
import type { Logger } from 'pino';
import type { ApiClients } from '../../kube/api-clients.ts';
import { describeApiError } from '../../kube/api-errors.ts';
import { PeriodicRunnable } from '../../runtime/periodic.ts';
import type { Runnable } from '../../runtime/runnable.ts';
import type { ConnectedTarget } from './burst-step.ts';
import { collectOrphans, type OrphanSweep } from './orphans.ts';
import { collectVolumes } from './volume-collector.ts';

export const ORPHAN_SWEEP_MS = 5 * 60_000;
/** Deletions come in bursts (a namespace, a test suite): one volume collection after them. */
export const VOLUME_COLLECTION_DELAY_MS = 1_000;

export interface CollectorsOptions {
  readonly clients: ApiClients;
  readonly log: Logger;
  /** Namespaces the operator watches; empty for all. */
  readonly namespaces: readonly string[];
  /** Leading, not stopping, and every cache listed: only then is a collection safe. */
  ready(): boolean;
  /** This cluster's identity (burst objects carry it), once known. */
  clusterId(): string | undefined;
  /** The uids of the MiniClusters in the cache: what the collectors keep. */
  livingUids(): Set<string>;
  /** The BurstTargets connected now, whose orphans are swept too. */
  connectedTargets(): readonly { readonly clients: ConnectedTarget['clients']; readonly namespace: string }[];
}

export class MiniClusterCollectors implements Runnable {
  private readonly options: CollectorsOptions;
  private readonly periodic: PeriodicRunnable;

  constructor(options: CollectorsOptions) {
    this.options = options;
    this.periodic = new PeriodicRunnable({
      intervalMs: ORPHAN_SWEEP_MS,
      onInterval: () => {
        this.periodic.run('orphan collection', () => this.collectOrphans());
        this.collectVolumesSoon();
      },
      // MiniClusters deleted while no operator led leave volumes behind.
      onStart: () => this.collectVolumesSoon(),
      onError: (task, error) => options.log.warn({ error: describeApiError(error) }, `${task} failed`),
    });
  }

  start(): void {
    this.periodic.start();
  }

  stop(): void {
    this.periodic.stop();
  }

  /** Removes this cluster's orphaned burst objects here and on every connected target (tests call it). */
  async collectOrphans(): Promise<OrphanSweep[]> {
    const { clients, log, namespaces } = this.options;
    const clusterId = this.options.clusterId();
    if (!clusterId || !this.options.ready()) return [];
    const living = this.options.livingUids();
    const local = namespaces.length > 0 ? [...namespaces] : [undefined];
    const targets = [
      ...local.map((namespace) => ({ clients, namespace })),
      ...this.options
        .connectedTargets()
        .map((target) => ({ clients: target.clients, namespace: target.namespace })),
    ];
    const sweeps: OrphanSweep[] = [];
    for (const target of targets) {
      const sweep = await collectOrphans(target, clusterId, living);
      if (sweep.miniClusters.length + sweep.secrets.length > 0) {
        log.info({ ...sweep }, 'removed orphaned burst objects');
      }
      sweeps.push(sweep);
    }
    return sweeps;
  }

  /** Deletes the volumes of deleted MiniClusters (tests call it). */
  async collectVolumes(): Promise<string[]> {
    const { clients, log, namespaces } = this.options;
    if (!this.options.ready()) return [];
    const deleted = await collectVolumes(clients, () => this.options.livingUids(), namespaces);
    if (deleted.length > 0)
      log.info({ persistentVolumes: deleted }, 'removed the volumes of deleted MiniClusters');
    return deleted;
  }

  /** One volume collection shortly after a burst of deletions, never two at once; only while running. */
  collectVolumesSoon(): void {
    this.periodic.soon('volume collection', VOLUME_COLLECTION_DELAY_MS, () => this.collectVolumes());
  }
}
