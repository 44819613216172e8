/**
 * One controller: a work queue of object keys, the watches that fill it and the reconcile function
 * that drains it. A controller's setup declares its watches in one place, as controller-runtime's
 * builder does (`For(MiniCluster).Owns(Job)...`): `for` the kind it reconciles, `owns` the kinds
 * whose events go to their owner, `watches` anything else mapped to a key. Made by Manager.controller.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeApiError, isNotFound, isTransient } from '../kube/api-errors.ts';
import { lazyReconcileLogger, type ReconcileLog } from '../observability/logger.ts';
import type { InformerHandlers, ResilientInformer, WatchedKind } from './informers.ts';
import { objectKeyOf, splitObjectKey, type ObjectKey } from './object-key.ts';
import { WorkQueue } from './work-queue.ts';

export interface ReconcileOutcome {
  /** Look again after this long even without a change (waiting on something not watched). */
  readonly requeueAfterMs?: number;
}

export interface ControllerOptions {
  /** The controller's name in logs and metrics (`minicluster`). */
  readonly name: string;
  readonly concurrency: number;
  /** One pass over one object; `log` carries its namespace, name and a reconcile id. */
  readonly reconcile: (objectKey: ObjectKey, log: ReconcileLog) => Promise<ReconcileOutcome>;
  /** The key of the object an owned object's events are for (`owns`); undefined for none. */
  readonly ownerOf?: (object: KubernetesObject) => ObjectKey | undefined;
  /**
   * How long the events of owned and watched objects wait: the pods and children of one object change
   * together (scheduled, started, finished), and a short delay folds their events into one pass.
   */
  readonly eventDelayMs?: number;
  /** Whether the API server says the object is gone when a pass fails with NotFound (the cache may lag). */
  readonly confirmGone?: (objectKey: ObjectKey) => Promise<boolean>;
  /** After each pass, its outcome and duration (metrics). */
  readonly onReconcile?: (result: 'success' | 'error' | 'requeue_after', seconds: number) => void;
  readonly onQueueDepth?: (depth: number) => void;
}

/** Where an informer watches: the manager's namespaces, or cluster-wide for cluster-scoped kinds. */
export interface WatchOptions {
  readonly labelSelector?: string;
  readonly clusterWide?: boolean;
}

/** What a controller needs of its manager. */
export interface ControllerHost {
  readonly log: Logger;
  /** Leading and not stopping: only then are keys queued. */
  readonly isLeader: boolean;
  /** True while the API server is known to be away (failures are then warnings, not errors). */
  readonly serverAway: boolean;
  informer<T extends KubernetesObject>(
    kind: WatchedKind<T>,
    options: WatchOptions,
    handlers: InformerHandlers<T>,
  ): ResilientInformer<T>;
}

const DEFAULT_EVENT_DELAY_MS = 500;
/** Longer than any request may be silent (REQUEST_IDLE_TIMEOUT_MS): a pass this long is stuck somewhere. */
const SLOW_PASS_MS = 90_000;

export class Controller {
  readonly name: string;
  private readonly host: ControllerHost;
  private readonly options: ControllerOptions;
  private readonly queue: WorkQueue;
  private primary: { kind: string; informer: ResilientInformer<KubernetesObject> } | undefined;
  private readonly seenGenerations = new Map<ObjectKey, number | undefined>();

  constructor(host: ControllerHost, options: ControllerOptions) {
    this.host = host;
    this.options = options;
    this.name = options.name;
    this.queue = new WorkQueue((key) => this.handle(key), {
      concurrency: options.concurrency,
      onError: (key, error, attempt) => {
        const { namespace, name } = splitObjectKey(key);
        // An unreachable or overloaded API server is not this object's fault, and heals by itself.
        const transient = this.host.serverAway || isTransient(error);
        (transient ? host.log.warn.bind(host.log) : host.log.error.bind(host.log))(
          {
            namespace,
            name,
            attempt,
            retryInMs: this.queue.backoffFor(attempt),
            error: describeApiError(error),
          },
          'reconcile failed; retrying',
        );
      },
    });
  }

  /** The kind this controller reconciles, once `for` declared it. */
  get kind(): string | undefined {
    return this.primary?.kind;
  }

  /**
   * The kind this controller reconciles. Spec changes (generation), deletion and first sight queue a
   * pass that cuts a failure's backoff short; status-only updates do not. `onDelete` runs after the
   * object's key is forgotten.
   */
  for<T extends KubernetesObject>(
    kind: WatchedKind<T>,
    options: WatchOptions & { onDelete?: (object: T) => void } = {},
  ): ResilientInformer<T> {
    if (this.primary) throw new Error(`controller ${this.name} already reconciles ${this.primary.kind}`);
    const informer = this.host.informer(kind, options, {
      onAdd: (object) => this.onPrimary(object),
      onUpdate: (object) => this.onPrimary(object),
      onDelete: (object) => {
        const key = objectKeyOf(object);
        this.seenGenerations.delete(key);
        this.queue.forget(key);
        options.onDelete?.(object);
      },
    });
    this.primary = { kind: kind.name, informer: informer as unknown as ResilientInformer<KubernetesObject> };
    return informer;
  }

  /** A kind whose objects' events queue a pass of their owner (`ownerOf`), after the event delay. */
  owns<T extends KubernetesObject>(kind: WatchedKind<T>, options: WatchOptions = {}): ResilientInformer<T> {
    const ownerOf = this.options.ownerOf;
    if (!ownerOf) throw new Error(`controller ${this.name} owns ${kind.name} but has no ownerOf`);
    return this.watches(kind, { ...options, map: ownerOf });
  }

  /**
   * A kind whose objects' events queue a pass of the object `map` names, after the event delay, or at
   * once for an object `urgent` picks (news that ends something, worth no wait); `handlers` see each
   * event first (an index, say).
   */
  watches<T extends KubernetesObject>(
    kind: WatchedKind<T>,
    options: WatchOptions & {
      map: (object: T) => ObjectKey | undefined;
      handlers?: InformerHandlers<T>;
      urgent?: (object: T) => boolean;
    },
  ): ResilientInformer<T> {
    const { map, handlers, urgent } = options;
    const delayMs = this.options.eventDelayMs ?? DEFAULT_EVENT_DELAY_MS;
    const enqueueMapped = (object: T) => {
      const key = map(object);
      if (!key || !this.host.isLeader) return;
      if (urgent?.(object)) this.enqueue(key);
      else this.queue.addAfter(key, delayMs);
    };
    return this.host.informer(kind, options, {
      onAdd: (object) => {
        handlers?.onAdd(object);
        enqueueMapped(object);
      },
      onUpdate: (object) => {
        handlers?.onUpdate(object);
        enqueueMapped(object);
      },
      onDelete: (object) => {
        handlers?.onDelete(object);
        enqueueMapped(object);
      },
    });
  }

  /** Queues a pass of one object (while leading); `bypassBackoff` cuts a failure's backoff short. */
  enqueue(key: ObjectKey, options: { bypassBackoff?: boolean } = {}): void {
    if (!this.host.isLeader) return;
    this.queue.add(key, { bypassBackoff: options.bypassBackoff ?? false });
    this.options.onQueueDepth?.(this.queue.depth);
  }

  /** Queues a pass of every object of the reconciled kind in the cache, or of one namespace's. */
  enqueueAll(namespace?: string): void {
    for (const object of this.primary?.informer.list(namespace) ?? []) this.enqueue(objectKeyOf(object));
  }

  /** Taking the lead: every object gets a pass. */
  startLeading(): void {
    this.enqueueAll();
  }

  /**
   * After an outage: what failed meanwhile is retried now, and every object gets a pass (a full
   * resync), since changes the caches missed may have been made while they were away.
   */
  resync(): void {
    if (!this.host.isLeader) return;
    this.queue.retryFailedNow();
    this.enqueueAll();
  }

  /** Drops what is queued and takes nothing more; a pass running finishes. */
  stopQueue(): void {
    this.queue.stop();
  }

  /** Resolves when no pass is queued, delayed or running. */
  async idle(): Promise<void> {
    await this.queue.idle();
  }

  get queueDepth(): number {
    return this.queue.depth;
  }

  private onPrimary(object: KubernetesObject): void {
    const key = objectKeyOf(object);
    const generation = object.metadata?.generation;
    const seen = this.seenGenerations.has(key) ? this.seenGenerations.get(key) : -1;
    this.seenGenerations.set(key, generation);
    if (seen !== generation || object.metadata?.deletionTimestamp) this.enqueue(key, { bypassBackoff: true });
  }

  private async handle(key: ObjectKey): Promise<void> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const { onReconcile, onQueueDepth, confirmGone } = this.options;
    // A pass holds its object: nothing else of it runs until the pass ends. One that takes this long
    // is waiting on something (the API server, an exec), and says so once.
    const slow = setTimeout(() => {
      const { namespace, name } = splitObjectKey(key);
      this.host.log.warn(
        { controller: this.name, namespace, name, runningMs: SLOW_PASS_MS },
        'a reconcile pass is still running; other changes of this object wait for it',
      );
    }, SLOW_PASS_MS);
    slow.unref();
    try {
      const { namespace, name } = splitObjectKey(key);
      const log = lazyReconcileLogger(this.host.log, { namespace, name, controller: this.name });
      const result = await this.options.reconcile(key, log);
      if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      onReconcile?.(result.requeueAfterMs !== undefined ? 'requeue_after' : 'success', seconds());
    } catch (error) {
      if (isNotFound(error) && confirmGone && (await confirmGone(key).catch(() => false))) {
        // Deleted while the cache still had it: nothing is left to reconcile.
        this.queue.forget(key);
        onReconcile?.('success', seconds());
        return;
      }
      onReconcile?.('error', seconds());
      throw error;
    } finally {
      clearTimeout(slow);
      onQueueDepth?.(this.queue.depth);
    }
  }
}
