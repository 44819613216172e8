// The one JSON line `npm run bench -- --against-go` prints, from what each operator's phase measured.
import type { AgainstGoOptions, OperatorName } from './against-go-options.ts';
import { round } from './process-metrics.ts';

/** What one operator's phase measured (raw: seconds, CPU seconds, counts, MiB). */
export interface PhaseMeasure {
  /** From the first MiniCluster created to every pod Running. */
  secondsToRunning: number;
  /** To the operator's last write (no write for 3 s after it). */
  settledSeconds: number;
  /** CPU (user + system) from the process start to settling, and the part spent before the first MiniCluster. */
  cpuSeconds: number;
  startCpuSeconds: number;
  /** rest_client_requests_total at settling, and by HTTP method. */
  requests: number;
  requestsByMethod: Record<string, number>;
  /** Writes at settling (OperatorCommand.writesMetric). */
  writes: number;
  /** Requests in the steady period after settling. */
  steadyRequests: number;
  rssMiB: number;
  peakRssMiB: number;
  /** Live heap: nodejs_heap_size_used_bytes (ours), go_memstats_heap_alloc_bytes (Go). */
  heapUsedMiB: number;
}

function operatorFigures(measure: PhaseMeasure, count: number) {
  return {
    seconds_to_running: round(measure.secondsToRunning),
    settled_seconds: round(measure.settledSeconds),
    cpu_seconds: round(measure.cpuSeconds),
    start_cpu_seconds: round(measure.startCpuSeconds),
    cpu_ms_per_minicluster: round(((measure.cpuSeconds - measure.startCpuSeconds) * 1000) / count),
    api_requests: measure.requests,
    api_requests_by_method: measure.requestsByMethod,
    writes_per_minicluster: round(measure.writes / count),
    steady_state_requests_30s: measure.steadyRequests,
    rss_mib: round(measure.rssMiB),
    peak_rss_mib: round(measure.peakRssMiB),
    heap_used_mib: round(measure.heapUsedMiB),
  };
}

/** Go's figure over ours (above 1: Go takes more); null where ours is 0. */
function ratio(go: number, ours: number): number | null {
  return ours === 0 ? null : round(go / ours);
}

export interface ResultContext {
  /** The Go operator's source (archive commit). */
  goCommit: string;
  /** Logical CPUs of the machine (shared with whatever else runs on it). */
  machineCpus: number;
}

export function againstGoResult(
  options: Pick<AgainstGoOptions, 'count' | 'size' | 'order' | 'steadySeconds' | 'goAffinity'>,
  measures: Record<OperatorName, PhaseMeasure>,
  context: ResultContext,
) {
  const ours = operatorFigures(measures.ours, options.count);
  const go = operatorFigures(measures.go, options.count);
  return {
    miniclusters: options.count,
    size: options.size,
    pods: options.count * options.size,
    order: options.order,
    steady_seconds: options.steadySeconds,
    go_affinity: options.goAffinity,
    go_commit: context.goCommit,
    machine_cpus: context.machineCpus,
    ours,
    go,
    go_over_ours: {
      seconds_to_running: ratio(go.seconds_to_running, ours.seconds_to_running),
      cpu_ms_per_minicluster: ratio(go.cpu_ms_per_minicluster, ours.cpu_ms_per_minicluster),
      api_requests: ratio(go.api_requests, ours.api_requests),
      peak_rss_mib: ratio(go.peak_rss_mib, ours.peak_rss_mib),
    },
  };
}

export function againstGoLine(...args: Parameters<typeof againstGoResult>): string {
  return `${JSON.stringify(againstGoResult(...args))}\n`;
}
