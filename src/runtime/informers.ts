import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { ListWatch } from '../kube/list-watch.ts';
import type { Transport } from '../kube/transport.ts';
import type { ApiServerRecovery } from './api-server-recovery.ts';

/** How to list and watch one kind, cluster-wide (namespace undefined) or in one namespace. */
export interface WatchedKind<T extends KubernetesObject> {
  readonly name: string;
  path(namespace: string | undefined): string;
  list(namespace: string | undefined, labelSelector: string | undefined): Promise<KubernetesListObject<T>>;
  /** What the cache keeps of each object beyond trimForCache (drops fields the controller never reads). */
  readonly transform?: (object: T) => T;
}

export interface InformerHandlers<T> {
  onAdd(object: T): void;
  onUpdate(object: T): void;
  onDelete(object: T): void;
}

export interface ResilientInformerOptions<T extends KubernetesObject> {
  readonly transport: Transport;
  readonly kind: WatchedKind<T>;
  /** Namespaces to watch; empty for all. */
  readonly namespaces: readonly string[];
  readonly labelSelector?: string;
  readonly handlers: InformerHandlers<T>;
  readonly onError: (kind: string, error: unknown, retryInMs: number) => void;
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Restarts waiting scopes as soon as the API server is back after an outage. */
  readonly recovery?: ApiServerRecovery;
}

/**
 * What a cache keeps of an object: everything but metadata.managedFields, which nothing here reads
 * and which is a large share of every object the API returns (client-go informers drop it the same
 * way, through a transform).
 */
export function trimForCache<T extends KubernetesObject>(object: T): T {
  if (object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
  return object;
}

/**
 * An informer per watched namespace (or one cluster-wide) that restarts with backoff after an error:
 * the client's informer relists by itself only on 410 Gone and stops on anything else.
 */
export class ResilientInformer<T extends KubernetesObject> {
  private readonly informers: { namespace: string | undefined; informer: ListWatch<T> }[];
  private readonly backoffMs = new Map<string | undefined, number>();
  private readonly timers = new Map<string | undefined, NodeJS.Timeout>();
  private readonly recoveryWaits = new Map<string | undefined, () => void>();
  private readonly synced = new Set<string | undefined>();
  private stopped = false;
  private readonly options: ResilientInformerOptions<T>;

  constructor(options: ResilientInformerOptions<T>) {
    this.options = options;
    const scopes = options.namespaces.length > 0 ? [...options.namespaces] : [undefined];
    this.informers = scopes.map((namespace) => {
      const transform = options.kind.transform;
      const informer: ListWatch<T> = new ListWatch<T>({
        transport: options.transport,
        path: options.kind.path(namespace),
        ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
        list: () => options.kind.list(namespace, options.labelSelector),
        transform: transform ? (object) => transform(trimForCache(object)) : trimForCache,
        handlers: {
          onAdd: (object) => options.handlers.onAdd(object),
          onUpdate: (object) => options.handlers.onUpdate(object),
          onDelete: (object) => options.handlers.onDelete(object),
          onError: (error) => this.restartLater(namespace, informer, error),
        },
      });
      return { namespace, informer };
    });
  }

  get kindName(): string {
    return this.options.kind.name;
  }

  /** True once every scope has listed successfully at least once. */
  get hasSynced(): boolean {
    return this.synced.size === this.informers.length;
  }

  /** Starts every scope; resolves when each has listed once (or keeps retrying in the background). */
  async start(): Promise<void> {
    await Promise.all(this.informers.map(({ namespace, informer }) => this.startScope(namespace, informer)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const cancel of this.recoveryWaits.values()) cancel();
    this.recoveryWaits.clear();
    for (const { informer } of this.informers) informer.stop();
  }

  get(name: string, namespace: string): T | undefined {
    for (const scope of this.informers) {
      if (scope.namespace === undefined || scope.namespace === namespace) {
        const found = scope.informer.get(name, namespace);
        if (found) return found;
      }
    }
    return undefined;
  }

  list(namespace?: string): T[] {
    return this.informers.flatMap((scope) =>
      scope.namespace === undefined || namespace === undefined || scope.namespace === namespace
        ? [...scope.informer.list(namespace)]
        : [],
    );
  }

  /**
   * After an outage: every scope's watch starts again from where it was (the waiting ones are
   * restarted by the recovery already). A watch opened while the server was coming back may be
   * attached to a connection that never delivers; one more watch request is cheap.
   */
  async restartWatches(): Promise<void> {
    if (this.stopped) return;
    await Promise.all(
      this.informers
        .filter(({ namespace }) => !this.timers.has(namespace))
        .map(({ namespace, informer }) => this.startScope(namespace, informer)),
    );
  }

  private async startScope(namespace: string | undefined, informer: ListWatch<T>): Promise<void> {
    try {
      await informer.start();
    } catch (error) {
      this.restartLater(namespace, informer, error);
      return;
    }
    this.synced.add(namespace);
    this.backoffMs.delete(namespace);
  }

  private restartLater(namespace: string | undefined, informer: ListWatch<T>, error: unknown): void {
    if (this.stopped) return;
    const initial = this.options.initialBackoffMs ?? 500;
    const delay = Math.min(this.backoffMs.get(namespace) ?? initial, this.options.maxBackoffMs ?? 30_000);
    this.backoffMs.set(namespace, delay * 2);
    this.options.onError(this.options.kind.name, error, delay);
    const restart = async () => {
      const timer = this.timers.get(namespace);
      if (timer) clearTimeout(timer);
      this.timers.delete(namespace);
      this.recoveryWaits.get(namespace)?.();
      this.recoveryWaits.delete(namespace);
      if (!this.stopped) await this.startScope(namespace, informer);
    };
    const previous = this.timers.get(namespace);
    if (previous) clearTimeout(previous);
    this.timers.set(
      namespace,
      setTimeout(() => void restart(), delay),
    );
    if (this.options.recovery) {
      this.recoveryWaits.get(namespace)?.();
      this.recoveryWaits.set(namespace, this.options.recovery.wait(restart));
    }
  }
}
