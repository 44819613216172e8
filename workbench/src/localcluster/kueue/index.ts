// Real Kueue in a local cluster, on request (`cluster:up -- --with-kueue`, `up({ kueue: true })`).
export { KUEUE_BUILD_SECONDS, ensureKueueBuilt, kueueBuilt } from './build.ts';
export { kueueDetach, kueueDown, kueueExists, kueueStatus, kueueUp } from './kueue.ts';
export type { KueueOptions, KueueStatus } from './kueue.ts';
export { KUEUE_VERSION, kueueBinary } from './paths.ts';
export { kueueUnavailable } from './process.ts';
export { QUEUE_NAME_LABEL } from './ready.ts';
