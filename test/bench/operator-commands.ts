// How the bench starts each operator out of cluster: command line, the log line that says it is
// reconciling, and the gauge of its live heap.
import { OPERATOR_NODE_OPTIONS } from '../../src/deploy/constants.ts';

/** MiniClusters our operator reconciles at once in benches (the Go operator has one worker, fixed). */
export const OPERATOR_CONCURRENCY = 8;

export interface OperatorCommand {
  command: string;
  args: string[];
  /** Environment added to the bench's own (ours: the Deployment's V8 flags, as deployed). */
  env: Record<string, string>;
  /** A log line printed once its caches are synced and it reconciles. */
  readyLine: RegExp;
  /** The /metrics gauge of its live heap, in bytes. */
  heapMetric: string;
  /**
   * The /metrics counter of its writes; without one, its requests other than GET (the Go operator
   * makes no dry runs, which are PATCH requests that store nothing).
   */
  writesMetric?: string;
}

export interface OursOptions {
  /** The compiled CLI (dist/src/cli/main.js), as the image runs it. */
  main: string;
  kubeconfig: string;
  metricsAddr: string;
  /** Watch only this namespace (default: all, as the Go operator does). */
  namespace?: string;
  /** V8 old-space limit (MiB), e.g. what a container memory limit leads Node to pick. */
  heapMiB?: number;
  /** Write a V8 CPU profile (.cpuprofile) of the operator here when it exits. */
  cpuProfileDir?: string;
  node?: string;
}

export function oursCommand(options: OursOptions): OperatorCommand {
  return {
    command: options.node ?? process.execPath,
    args: [
      ...(options.heapMiB === undefined ? [] : [`--max-old-space-size=${options.heapMiB}`]),
      ...(options.cpuProfileDir === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`]),
      options.main,
      'run',
      '--kubeconfig',
      options.kubeconfig,
      ...(options.namespace === undefined ? [] : ['--namespace', options.namespace]),
      '--metrics-addr',
      options.metricsAddr,
      '--health-addr',
      '0',
      '--log-level',
      'info',
      '--concurrency',
      String(OPERATOR_CONCURRENCY),
    ],
    env: { NODE_OPTIONS: OPERATOR_NODE_OPTIONS },
    readyLine: /"msg":"leading: reconciling MiniClusters"/,
    heapMetric: 'nodejs_heap_size_used_bytes',
    writesMetric: 'flux_operator_api_writes_total',
  };
}

/**
 * The Go operator (controller-runtime 0.12): leader election off (its default, said explicitly),
 * health probes off, logs as JSON at info like ours (its default is the development console encoder
 * at debug level).
 */
export function goCommand(options: {
  binary: string;
  kubeconfig: string;
  metricsPort: number;
}): OperatorCommand {
  return {
    command: options.binary,
    args: [
      '--kubeconfig',
      options.kubeconfig,
      '--metrics-bind-address',
      `127.0.0.1:${options.metricsPort}`,
      '--health-probe-bind-address',
      '0',
      '--leader-elect=false',
      '--zap-devel=false',
    ],
    env: {},
    readyLine: /"msg":"Starting workers"/,
    heapMetric: 'go_memstats_heap_alloc_bytes',
  };
}
