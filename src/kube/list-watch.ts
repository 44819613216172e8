/**
 * A cache of one collection kept by a list then a watch from the list's resourceVersion, as
 * client-go's reflector does: the watch resumes from the last resourceVersion seen (events and
 * bookmarks) when it ends; a 410 Gone (the version is too old) relists. Any other failure is
 * reported through `onError` and the cache stops until `start()` is called again (the caller backs
 * off: informers.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { apiErrorCode } from './api-errors.ts';
import type { Query, Transport, WatchEvent } from './transport.ts';

export interface ListWatchHandlers<T> {
  onAdd(object: T): void;
  onUpdate(object: T): void;
  onDelete(object: T): void;
  onError(error: unknown): void;
}

export interface ListWatchOptions<T extends KubernetesObject> {
  readonly transport: Transport;
  /** The collection's path (`/api/v1/namespaces/ns/pods`). */
  readonly path: string;
  readonly labelSelector?: string;
  /** Lists the collection (the default: GET `path`). */
  readonly list?: () => Promise<KubernetesListObject<T>>;
  /** What the cache keeps of each object (drops fields nothing reads). */
  readonly transform?: (object: T) => T;
  readonly handlers: ListWatchHandlers<T>;
}

/** A watch that ends sooner than this waits this long before the next. */
const QUICK_END_MS = 1_000;

function keyOf(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

export class ListWatch<T extends KubernetesObject> {
  private readonly options: ListWatchOptions<T>;
  private objects = new Map<string, T>();
  private resourceVersion = '';
  private stopWatch: (() => void) | undefined;
  private stopped = true;
  private watchStartedAt = 0;

  constructor(options: ListWatchOptions<T>) {
    this.options = options;
  }

  /** Lists (unless a watch can resume), then watches. Rejects if the list fails. */
  async start(): Promise<void> {
    this.stopped = false;
    this.stopWatch?.();
    if (this.resourceVersion === '') await this.relist();
    this.watch();
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
    this.stopWatch = undefined;
  }

  get(name: string, namespace: string | undefined): T | undefined {
    return this.objects.get(`${namespace ?? ''}/${name}`);
  }

  list(namespace?: string): T[] {
    const all = [...this.objects.values()];
    return namespace === undefined ? all : all.filter((object) => object.metadata?.namespace === namespace);
  }

  private transform(object: T): T {
    return this.options.transform ? this.options.transform(object) : object;
  }

  private async relist(): Promise<void> {
    const { transport, path, labelSelector } = this.options;
    const list =
      (await this.options.list?.()) ??
      (await transport.request<KubernetesListObject<T>>('GET', path, {
        ...(labelSelector !== undefined ? { query: { labelSelector } } : {}),
      }));
    const previous = this.objects;
    const next = new Map<string, T>();
    for (const item of list.items) next.set(keyOf(item), this.transform(item));
    this.objects = next;
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    const { handlers } = this.options;
    for (const [key, object] of previous) if (!next.has(key)) handlers.onDelete(object);
    for (const [key, object] of next) {
      const old = previous.get(key);
      if (!old) handlers.onAdd(object);
      else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion) handlers.onUpdate(object);
    }
  }

  private watch(): void {
    if (this.stopped) return;
    // One watch at a time: two starts racing (a backoff timer and the outage recovery) would
    // otherwise leave the first watch running unseen, holding its connection past stop().
    this.stopWatch?.();
    const query: Query = {
      resourceVersion: this.resourceVersion,
      ...(this.options.labelSelector !== undefined ? { labelSelector: this.options.labelSelector } : {}),
    };
    this.watchStartedAt = Date.now();
    this.stopWatch = this.options.transport.watch(this.options.path, {
      query,
      onEvent: (event) => this.onEvent(event),
      onDone: (error) => void this.onDone(error),
    });
  }

  private onEvent(event: WatchEvent): void {
    const { handlers } = this.options;
    if (event.type === 'ERROR') {
      // A Status: 410 means our resourceVersion is gone from the server's window; relist.
      if ((event.object as { code?: unknown }).code === 410) this.resourceVersion = '';
      return;
    }
    const object = event.object as unknown as T;
    const version = object.metadata?.resourceVersion;
    if (version) this.resourceVersion = version;
    if (event.type === 'BOOKMARK') return;
    const key = keyOf(object);
    if (event.type === 'DELETED') {
      const old = this.objects.get(key);
      this.objects.delete(key);
      handlers.onDelete(old ?? this.transform(object));
      return;
    }
    const kept = this.transform(object);
    const existed = this.objects.has(key);
    this.objects.set(key, kept);
    if (existed) handlers.onUpdate(kept);
    else handlers.onAdd(kept);
  }

  private async onDone(error: unknown): Promise<void> {
    this.stopWatch = undefined;
    if (this.stopped) return;
    if (error !== undefined && apiErrorCode(error) === 410) this.resourceVersion = '';
    else if (error !== undefined && (error as { name?: unknown }).name !== 'TimeoutError') {
      this.stopped = true;
      this.options.handlers.onError(error);
      return;
    }
    // A watch the server ends at once, again and again, must not spin.
    if (Date.now() - this.watchStartedAt < QUICK_END_MS) await sleep(QUICK_END_MS);
    if (this.stopped) return;
    try {
      if (this.resourceVersion === '') await this.relist();
      this.watch();
    } catch (listError) {
      this.stopped = true;
      this.options.handlers.onError(listError);
    }
  }
}
