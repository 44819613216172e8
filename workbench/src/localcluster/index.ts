// The local control plane as a library: build the binaries, bring named clusters up and down.
export { ensureBuilt, missingBinaries, stderrProgress } from './build.ts';
export type { EnsureBuiltOptions } from './build.ts';
export type { Progress } from '../tooling/hack-script.ts';
export { DEFAULT_NODES, down, status, up } from './cluster.ts';
export type {
  ClusterOptions,
  ClusterStatus,
  ComponentProcess,
  NodeShape,
  UpOptions,
  UpResult,
} from './cluster.ts';
export { BINARIES, DEFAULT_CLUSTER, binDir, kubeconfigPath, stateDir } from './paths.ts';
export { cacheRoot, readVersions } from '../tooling/project.ts';
export type { Versions } from '../tooling/project.ts';
export { listeningSockets, listeningSocketsOf } from './procfs.ts';
export type { ListeningSocket } from './procfs.ts';
export { EXIT_CODE_ANNOTATION, STAGES_YAML } from './stages.ts';
export { KUEUE_VERSION, QUEUE_NAME_LABEL, kueueUnavailable } from './kueue/index.ts';
export type { KueueStatus } from './kueue/index.ts';
