/**
 * Something the manager starts and stops besides its controllers (controller-runtime's Runnable): a
 * leader-only one runs only while this instance leads; another starts with the manager, before the
 * caches, and its start is awaited.
 */
export interface Runnable {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}
