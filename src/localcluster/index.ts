// The local control plane as a library: build the binaries, bring named clusters up and down.
export { ensureBuilt, missingBinaries, stderrProgress } from './build.ts';
export type { EnsureBuiltOptions, Progress } from './build.ts';
export { DEFAULT_NODES, down, status, up } from './cluster.ts';
export type {
  ClusterOptions,
  ClusterStatus,
  ComponentProcess,
  NodeShape,
  UpOptions,
  UpResult,
} from './cluster.ts';
export {
  BINARIES,
  DEFAULT_CLUSTER,
  binDir,
  cacheRoot,
  kubeconfigPath,
  readVersions,
  stateDir,
} from './paths.ts';
export type { Versions } from './paths.ts';
export { listeningSockets, listeningSocketsOf } from './procfs.ts';
export type { ListeningSocket } from './procfs.ts';
export { EXIT_CODE_ANNOTATION, STAGES_YAML } from './stages.ts';
