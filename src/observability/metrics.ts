/**
 * The operator's Prometheus metrics. Names, labels and buckets of the controller-runtime and
 * client-go families are those controller-runtime registers, so dashboards and alerts written for
 * Go operators work unchanged; the operator's own families are `flux_operator_*`.
 *
 * The controller calls the small methods of `OperatorMetrics` (`observeReconcile`, `setQueueDepth`,
 * `observeRequest`, ...) and never touches prom-client itself.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SUMMARIES } from '../api/index.ts';
import { writeOf } from '../kube/request-write.ts';
import type { AnsweredRequest } from '../kube/transport.ts';

/** `result` label of controller_runtime_reconcile_total, as controller-runtime sets it. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';
export const RECONCILE_RESULTS: readonly ReconcileResult[] = ['success', 'error', 'requeue', 'requeue_after'];

/** What applying one child object did (`result` label of flux_operator_reconcile_apply_total). */
export type ApplyResult = 'created' | 'updated' | 'unchanged' | 'error';

/** controller-runtime's buckets for controller_runtime_reconcile_time_seconds. */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * Buckets of flux_operator_reconcile_step_duration_seconds: a step mostly takes well under the 5 ms
 * of controller-runtime's first bucket (reading caches), a few take an API round trip or more.
 */
export const RECONCILE_STEP_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/**
 * client-go's workqueue duration buckets, `ExponentialBuckets(10e-9, 10, 12)`: 10ns to 1000s, one per
 * decade (written as literals so the `le` labels are exact decimal powers).
 */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = [
  1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000,
];

/** client-go's `code` label when a request got no HTTP response at all. */
export const NO_RESPONSE_CODE = '<error>';

export interface OperatorMetricsOptions {
  /** Register prom-client's default process and Node.js metrics (process_resident_memory_bytes, ...). */
  readonly defaultMetrics?: boolean;
  /** `host` label of rest_client_requests_total when observeRequest is not given one (host:port of the API server). */
  readonly apiHost?: string;
}

type ControllerLabel = 'controller';
type QueueLabel = 'name' | 'controller';

export interface OperatorMetrics {
  readonly registry: Registry;

  // controller-runtime
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<ControllerLabel>;
  readonly reconcileTime: Histogram<ControllerLabel>;
  readonly maxConcurrentReconciles: Gauge<ControllerLabel>;
  readonly activeWorkers: Gauge<ControllerLabel>;

  // client-go workqueue (as controller-runtime registers it)
  readonly workqueueDepth: Gauge<QueueLabel | 'priority'>;
  readonly workqueueAdds: Counter<QueueLabel>;
  readonly workqueueRetries: Counter<QueueLabel>;
  readonly workqueueQueueDuration: Histogram<QueueLabel>;
  readonly workqueueWorkDuration: Histogram<QueueLabel>;
  readonly workqueueUnfinishedWork: Gauge<QueueLabel>;
  readonly workqueueLongestRunningProcessor: Gauge<QueueLabel>;

  // client-go leader election and REST client
  readonly leaderElectionMasterStatus: Gauge<'name'>;
  readonly restClientRequests: Counter<'code' | 'method' | 'host'>;

  // the operator's own
  readonly apiWrites: Counter<'verb' | 'resource'>;
  readonly miniClusters: Gauge<'phase'>;
  readonly miniClustersCreated: Counter;
  readonly reconcileApply: Counter<'kind' | 'result'>;
  readonly reconcileStepTime: Histogram<'controller' | 'step'>;
  readonly podsRunning: Gauge;
  readonly fluxJobs: Gauge<'namespace' | 'name' | 'state'>;
  readonly fluxNodes: Gauge<'namespace' | 'name' | 'state'>;

  /**
   * Declares a controller: sets controller_runtime_max_concurrent_reconciles and starts its
   * reconcile counters at zero (as controller-runtime does), so rate() has a first sample.
   */
  registerController(controller: string, maxConcurrentReconciles: number): void;
  /** One finished reconcile: counts it by result (errors also in _errors_total) and times it. */
  observeReconcile(controller: string, result: ReconcileResult, seconds: number): void;
  /** One step of a reconcile (validate, apply, status, ...), by name: how long it took. */
  observeReconcileStep(controller: string, step: string, seconds: number): void;
  setActiveWorkers(controller: string, workers: number): void;

  /** Queue metrics are labelled `name` = `controller` = the controller's name, like controller-runtime. */
  setQueueDepth(queue: string, depth: number): void;
  countQueueAdd(queue: string): void;
  countQueueRetry(queue: string): void;
  /** Time a key waited in the queue before a worker took it. */
  observeQueueWait(queue: string, seconds: number): void;
  /** Time a worker spent handling a key. */
  observeQueueWork(queue: string, seconds: number): void;
  /** Seconds of in-progress work not yet observed, and the age of the longest-running item. */
  setQueueInProgress(queue: string, unfinishedSeconds: number, longestRunningSeconds: number): void;

  setLeader(lease: string, isLeader: boolean): void;

  /**
   * One request as the transport saw it (every request: lists, watches, gets, writes): in
   * rest_client_requests_total{code, method, host}, and when it wrote (request-write.ts: not a read,
   * not a dry run) and was answered, whatever the code, in flux_operator_api_writes_total{verb, resource}.
   */
  observeRequest(request: AnsweredRequest, host?: string): void;

  /** Sets flux_operator_miniclusters{phase}; phases missing from `counts` are set to 0. */
  setMiniClusters(counts: Readonly<Record<string, number>>): void;
  countMiniClusterCreated(): void;
  countApply(kind: string, result: ApplyResult): void;
  setPodsRunning(pods: number): void;
  /**
   * The Flux queue of one MiniCluster as last read: flux_operator_flux_jobs{namespace, name, state}
   * and flux_operator_flux_nodes{namespace, name, state}; undefined removes its series (deleted, or
   * no longer read).
   */
  setFluxQueue(namespace: string, name: string, queue: FluxQueueCounts | undefined): void;
}

/** A MiniCluster's Flux queue in counts: jobs by state, brokers (nodes) by state. */
export interface FluxQueueCounts {
  readonly jobs: Readonly<Record<FluxJobMetricState, number>>;
  readonly nodes: Readonly<Record<FluxNodeMetricState, number>>;
}

export const FLUX_JOB_METRIC_STATES = ['pending', 'running'] as const;
export type FluxJobMetricState = (typeof FLUX_JOB_METRIC_STATES)[number];
/** up and down partition the listed brokers; allocated and free partition up; draining and drained are drains. */
export const FLUX_NODE_METRIC_STATES = ['up', 'down', 'allocated', 'free', 'draining', 'drained'] as const;
export type FluxNodeMetricState = (typeof FLUX_NODE_METRIC_STATES)[number];

function assertNonNegative(what: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${what} must be a finite number >= 0, got ${value}`);
  }
}

export function createOperatorMetrics(
  registry: Registry = new Registry(),
  options: OperatorMetricsOptions = {},
): OperatorMetrics {
  const registers = [registry];
  const apiHost = options.apiHost ?? '';

  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const reconcileTotal = new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'] as const,
    registers,
  });
  const reconcileErrors = new Counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const reconcileTime = new Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'] as const,
    buckets: [...RECONCILE_TIME_BUCKETS],
    registers,
  });
  const maxConcurrentReconciles = new Gauge({
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const activeWorkers = new Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'] as const,
    registers,
  });

  const queueLabels = ['name', 'controller'] as const;
  const workqueueDepth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue by workqueue and priority',
    labelNames: ['name', 'controller', 'priority'] as const,
    registers,
  });
  const workqueueAdds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: queueLabels,
    registers,
  });
  const workqueueRetries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: queueLabels,
    registers,
  });
  const workqueueQueueDuration = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: queueLabels,
    buckets: [...WORKQUEUE_DURATION_BUCKETS],
    registers,
  });
  const workqueueWorkDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames: queueLabels,
    buckets: [...WORKQUEUE_DURATION_BUCKETS],
    registers,
  });
  const workqueueUnfinishedWork = new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help:
      "How many seconds of work has been done that is in progress and hasn't been observed by " +
      'work_duration. Large values indicate stuck threads. One can deduce the number of stuck ' +
      'threads by observing the rate at which this increases.',
    labelNames: queueLabels,
    registers,
  });
  const workqueueLongestRunningProcessor = new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: queueLabels,
    registers,
  });

  const leaderElectionMasterStatus = new Gauge({
    name: 'leader_election_master_status',
    help:
      'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 ' +
      "indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ['name'] as const,
    registers,
  });
  const restClientRequests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'] as const,
    registers,
  });

  const apiWrites = new Counter({
    name: 'flux_operator_api_writes_total',
    help: 'Kubernetes API requests that change state (create, update, patch, apply, delete), by verb and resource',
    labelNames: ['verb', 'resource'] as const,
    registers,
  });
  const miniClusters = new Gauge({
    name: 'flux_operator_miniclusters',
    help: 'MiniClusters known to the operator, by phase (status.summary)',
    labelNames: ['phase'] as const,
    registers,
  });
  const miniClustersCreated = new Counter({
    name: 'flux_operator_miniclusters_created_total',
    help: 'MiniClusters whose children the operator created for the first time',
    registers,
  });
  const reconcileApply = new Counter({
    name: 'flux_operator_reconcile_apply_total',
    help: 'Child objects applied during reconciles, by kind and result',
    labelNames: ['kind', 'result'] as const,
    registers,
  });
  const reconcileStepTime = new Histogram({
    name: 'flux_operator_reconcile_step_duration_seconds',
    help: 'Length of time per step of a reconciliation, per controller and step',
    labelNames: ['controller', 'step'] as const,
    buckets: [...RECONCILE_STEP_BUCKETS],
    registers,
  });
  const podsRunning = new Gauge({
    name: 'flux_operator_pods_running',
    help: 'Running pods of all MiniClusters',
    registers,
  });

  const fluxJobs = new Gauge({
    name: 'flux_operator_flux_jobs',
    help: 'Jobs in the Flux queue of a MiniCluster the operator reads (autoscaled, or scaling in), by state (pending, running), as last read',
    labelNames: ['namespace', 'name', 'state'] as const,
    registers,
  });
  const fluxNodes = new Gauge({
    name: 'flux_operator_flux_nodes',
    help: 'Brokers (nodes) of a MiniCluster the operator reads, by Flux state (up, down, allocated, free, draining, drained), as last read',
    labelNames: ['namespace', 'name', 'state'] as const,
    registers,
  });

  const knownPhases = new Set<string>(SUMMARIES);
  for (const phase of knownPhases) miniClusters.set({ phase }, 0);

  const queue = (name: string) => ({ name, controller: name });

  return {
    registry,
    reconcileTotal,
    reconcileErrors,
    reconcileTime,
    maxConcurrentReconciles,
    activeWorkers,
    workqueueDepth,
    workqueueAdds,
    workqueueRetries,
    workqueueQueueDuration,
    workqueueWorkDuration,
    workqueueUnfinishedWork,
    workqueueLongestRunningProcessor,
    leaderElectionMasterStatus,
    restClientRequests,
    apiWrites,
    miniClusters,
    miniClustersCreated,
    reconcileApply,
    reconcileStepTime,
    podsRunning,
    fluxJobs,
    fluxNodes,

    registerController(controller, maxConcurrent) {
      assertNonNegative('maxConcurrentReconciles', maxConcurrent);
      maxConcurrentReconciles.set({ controller }, maxConcurrent);
      activeWorkers.set({ controller }, 0);
      for (const result of RECONCILE_RESULTS) reconcileTotal.inc({ controller, result }, 0);
      reconcileErrors.inc({ controller }, 0);
      workqueueDepth.set({ ...queue(controller), priority: '' }, 0);
      workqueueAdds.inc(queue(controller), 0);
      workqueueRetries.inc(queue(controller), 0);
    },
    observeReconcile(controller, result, seconds) {
      assertNonNegative('reconcile time', seconds);
      reconcileTotal.inc({ controller, result });
      if (result === 'error') reconcileErrors.inc({ controller });
      reconcileTime.observe({ controller }, seconds);
    },
    observeReconcileStep(controller, step, seconds) {
      assertNonNegative('reconcile step time', seconds);
      reconcileStepTime.observe({ controller, step }, seconds);
    },
    setActiveWorkers(controller, workers) {
      assertNonNegative('active workers', workers);
      activeWorkers.set({ controller }, workers);
    },

    setQueueDepth(name, depth) {
      assertNonNegative('queue depth', depth);
      // controller-runtime's queues have no priorities; it sets priority="" too.
      workqueueDepth.set({ ...queue(name), priority: '' }, depth);
    },
    countQueueAdd(name) {
      workqueueAdds.inc(queue(name));
    },
    countQueueRetry(name) {
      workqueueRetries.inc(queue(name));
    },
    observeQueueWait(name, seconds) {
      assertNonNegative('queue wait', seconds);
      workqueueQueueDuration.observe(queue(name), seconds);
    },
    observeQueueWork(name, seconds) {
      assertNonNegative('work duration', seconds);
      workqueueWorkDuration.observe(queue(name), seconds);
    },
    setQueueInProgress(name, unfinishedSeconds, longestRunningSeconds) {
      assertNonNegative('unfinished work', unfinishedSeconds);
      assertNonNegative('longest running processor', longestRunningSeconds);
      workqueueUnfinishedWork.set(queue(name), unfinishedSeconds);
      workqueueLongestRunningProcessor.set(queue(name), longestRunningSeconds);
    },

    setLeader(lease, isLeader) {
      leaderElectionMasterStatus.set({ name: lease }, isLeader ? 1 : 0);
    },

    observeRequest(request, host = apiHost) {
      const { method, code } = request;
      restClientRequests.inc({ code: code === undefined ? NO_RESPONSE_CODE : String(code), method, host });
      // Unanswered, a write may not have reached the server; answered, whatever its code, it did.
      if (code === undefined) return;
      const write = writeOf(request);
      if (write) apiWrites.inc({ verb: write.verb, resource: write.resource });
    },

    setMiniClusters(counts) {
      for (const [phase, count] of Object.entries(counts)) {
        assertNonNegative(`miniclusters in phase ${phase}`, count);
        knownPhases.add(phase);
      }
      for (const phase of knownPhases) miniClusters.set({ phase }, counts[phase] ?? 0);
    },
    countMiniClusterCreated() {
      miniClustersCreated.inc();
    },
    countApply(kind, result) {
      reconcileApply.inc({ kind, result });
    },
    setPodsRunning(pods) {
      assertNonNegative('running pods', pods);
      podsRunning.set(pods);
    },
    setFluxQueue(namespace, name, queue) {
      if (queue === undefined) {
        for (const state of FLUX_JOB_METRIC_STATES) fluxJobs.remove({ namespace, name, state });
        for (const state of FLUX_NODE_METRIC_STATES) fluxNodes.remove({ namespace, name, state });
        return;
      }
      for (const state of FLUX_JOB_METRIC_STATES) {
        assertNonNegative(`flux jobs ${state}`, queue.jobs[state]);
        fluxJobs.set({ namespace, name, state }, queue.jobs[state]);
      }
      for (const state of FLUX_NODE_METRIC_STATES) {
        assertNonNegative(`flux nodes ${state}`, queue.nodes[state]);
        fluxNodes.set({ namespace, name, state }, queue.nodes[state]);
      }
    },
  };
}
