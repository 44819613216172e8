/** Counts API writes, for metrics and the benchmark's "writes per MiniCluster": every controller's. */
export type WriteCounter = (verb: 'apply' | 'create' | 'status' | 'delete' | 'event', kind: string) => void;
