/**
 * `flux-operator run`: the operator process. Wires the manager (caches, queue, reconciler, leader
 * election) to metrics, health endpoints and logs, and stops cleanly on SIGTERM.
 */
import { CONTROLLER_NAME, Operator } from '../controllers/operator.ts';
import type { InstallOperator } from '../burst/install-operator.ts';
import { providerConnectors } from '../burst/providers/connectors.ts';
import { DEFAULT_OPERATOR_IMAGE, OPERATOR_IMAGE_ENV } from '../deploy/constants.ts';
import { apiClients } from '../kube/api-clients.ts';
import { loadClusterAccess, type ClusterAccess } from '../kube/cluster-access.ts';
import {
  createLogger,
  isLogLevel,
  type LogFormat,
  type LogLevel,
  type Logger,
} from '../observability/logger.ts';
import { createOperatorMetrics } from '../observability/metrics.ts';
import { Counter } from 'prom-client';
import { startObservabilityServers } from '../observability/health-server.ts';
import { secureMetrics } from './secure-metrics.ts';
import { InputError } from './input-error.ts';
import { DEFAULT_NAMESPACE } from '../api/index.ts';
import { readSecret } from '../kube/secrets.ts';
import { DEFAULT_WEBHOOK_ADDR, fluxViewImage, webhookSettings } from './webhook-flags.ts';
import { describeClientConfig } from '../controllers/conversion/crd-client-config.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RunOptions {
  readonly kubeconfig?: string;
  readonly namespaces: readonly string[];
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace?: string;
  readonly metricsAddr: string;
  /** /metrics over HTTPS to the tokens the API server allows (observability/metrics-auth.ts). */
  readonly metricsSecure?: boolean;
  readonly healthAddr: string;
  readonly logLevel: string;
  readonly logFormat: string;
  readonly concurrency: number;
  /** Image installed on burst targets; `operatorImage()` picks it when absent. */
  readonly operatorImage?: string;
  /** Where to serve the conversion webhook (`0`: not at all); DEFAULT_WEBHOOK_ADDR when absent. */
  readonly webhookAddr?: string;
  /** In cluster: `<namespace>/<name>` of the webhook's Service, which the CRD names. */
  readonly webhookService?: string;
  /** The Flux view image of MiniClusters that name none. */
  readonly fluxViewImage?: string;
  /** Serve the webhook but never point the CRD at it (another webhook holds its conversions). */
  readonly leaveCrdConversion?: boolean;
  /** Namespaces allowed host storage besides those labelled (the Helm value hostStorageNamespaces). */
  readonly hostStorageNamespaces?: readonly string[];
  /** Out of cluster, how long to wait to be ready before exiting with 1; READY_TIMEOUT_MS by default. */
  readonly readyTimeoutMs?: number;
}

export const LEASE_NAME = 'flux-operator-leader';

/**
 * The image the operator installs on burst target clusters: the flag, else its own (the Deployment
 * sets OPERATOR_IMAGE), else this version's release image.
 */
export function operatorImage(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag || env[OPERATOR_IMAGE_ENV] || DEFAULT_OPERATOR_IMAGE;
}

function loggerOptions(options: RunOptions): { level: LogLevel; format: LogFormat } {
  const problems: string[] = [];
  if (!isLogLevel(options.logLevel))
    problems.push(`--log-level ${options.logLevel}: use one of trace, debug, info, warn, error`);
  if (options.logFormat !== 'json' && options.logFormat !== 'pretty') {
    problems.push(`--log-format ${options.logFormat}: use json or pretty`);
  }
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1 || options.concurrency > 256) {
    problems.push(`--concurrency ${options.concurrency}: use a whole number from 1 to 256`);
  }
  if (problems.length > 0) throw new InputError(problems);
  return { level: options.logLevel as LogLevel, format: options.logFormat as LogFormat };
}

/** One readiness check of /readyz, and what to say when it keeps failing. */
export interface ReadinessCheck {
  readonly ready: () => boolean;
  readonly why: () => string;
}

/**
 * What /readyz checks. In cluster (the webhook behind a Service) only the webhook: the Service sends
 * conversions to Ready pods alone, and the caches need conversions as soon as a MiniCluster is stored
 * as v1alpha1 (one written before an upgrade), so a pod waiting for its caches to be Ready would wait
 * forever; for the same reason it cannot wait for the API server to convert through it. Out of cluster
 * the API server calls this process directly: the caches too, and the API server seen converting a
 * v1alpha1 MiniCluster through the webhook the CRD now names (a newcomer's manifest then applies).
 */
export function readinessChecks(
  operator: Pick<Operator, 'synced' | 'webhookReady' | 'apiServerConverts' | 'conversionProblem'>,
  behindService: boolean,
): Record<string, ReadinessCheck> {
  const webhook: ReadinessCheck = {
    ready: () => operator.webhookReady,
    why: () => `the conversion webhook does not serve: ${operator.conversionProblem ?? 'it is stopping'}`,
  };
  if (behindService) return { 'conversion-webhook': webhook };
  return {
    'informers-synced': {
      ready: () => operator.synced,
      why: () =>
        'the caches have not listed every kind the operator watches (one not served, or MiniClusters stored as v1alpha1 with no webhook to convert them)',
    },
    'conversion-webhook': webhook,
    'crd-conversion': {
      ready: () => operator.apiServerConverts,
      why: () => operator.conversionProblem ?? 'the API server has not converted through the webhook',
    },
  };
}

/** How long `run` out of cluster waits to be ready before it gives up (and exits with 1). */
export const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 50;

/**
 * Resolves with the names of the checks still failing at the deadline ([] once all pass), or
 * undefined when `until` settles first (a signal).
 */
export async function waitUntilReady(
  checks: Readonly<Record<string, ReadinessCheck>>,
  timeoutMs: number,
  until: Promise<unknown>,
): Promise<string[] | undefined> {
  let interrupted = false;
  void until.then(() => (interrupted = true));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (interrupted) return undefined;
    const failing = Object.keys(checks).filter((name) => !checks[name]?.ready());
    if (failing.length === 0 || Date.now() >= deadline) return failing;
    await Promise.race([sleep(READY_POLL_MS), until]);
  }
}

/** The line that gives up: each check still failing, and why. */
export function notReadyMessage(
  checks: Readonly<Record<string, ReadinessCheck>>,
  failing: readonly string[],
  timeoutMs: number,
): string {
  const reasons = failing.map((name) => `${name}: ${checks[name]?.why() ?? 'failing'}`);
  return `flux-operator is not ready after ${Math.round(timeoutMs / 1000)} s: ${reasons.join('; ')}`;
}

/** Runs until SIGINT/SIGTERM (resolves with 0) or lost leadership (resolves with 1). */
export async function runOperator(options: RunOptions): Promise<number> {
  const log: Logger = createLogger(loggerOptions(options));
  let access: ClusterAccess;
  try {
    access = loadClusterAccess(options.kubeconfig);
  } catch (error) {
    throw new InputError([`cannot load a kubeconfig: ${(error as Error).message}`]);
  }
  const metrics = createOperatorMetrics(undefined, { apiHost: new URL(access.server).host });
  // Every request to the API server, as client-go counts them (lists, watches, gets and writes).
  const clients = apiClients(access, { onRequest: (request) => metrics.observeRequest(request) });
  metrics.registerController(CONTROLLER_NAME, options.concurrency);
  const leaseNamespace = options.leaderElectionNamespace ?? process.env.POD_NAMESPACE ?? DEFAULT_NAMESPACE;
  const webhook = webhookSettings({
    webhookAddr: options.webhookAddr ?? DEFAULT_WEBHOOK_ADDR,
    ...(options.webhookService !== undefined ? { webhookService: options.webhookService } : {}),
    ...(options.leaveCrdConversion ? { leaveCrdConversion: true } : {}),
    namespace: leaseNamespace,
  });
  if (webhook.problems.length > 0) throw new InputError(webhook.problems);
  const viewImage = fluxViewImage(options.fluxViewImage);
  const conversionFailures = new Counter({
    name: 'flux_operator_conversion_reviews_total',
    help: 'ConversionReviews the webhook answered, by result (success, failure, invalid).',
    labelNames: ['result'],
    registers: [metrics.registry],
  });

  let exitCode: number | undefined;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = (code) => {
      exitCode ??= code;
      resolve(exitCode);
    };
  });

  // GKE and EKS BurstTargets: the operator provisions the cluster, installs itself there, connects.
  // Kubeconfig targets with installOperator get the same install.
  const image = operatorImage(options.operatorImage, process.env);
  // The installer loads the official client: only when a BurstTarget asks for an install.
  const installOperator: InstallOperator = async (target) =>
    (await import('../burst/install-operator.ts')).installOperatorObjects(target, { image });
  const providers = providerConnectors({
    installOperator,
    readSecret: (namespace, name) => readSecret({ core: clients.core }, name, namespace),
  });
  const manager = new Operator({
    clients,
    log,
    providers: { gke: providers.gke, eks: providers.eks },
    deleteProvisioned: providers.deleteProvisioned,
    installOperator,
    namespaces: options.namespaces,
    concurrency: options.concurrency,
    fluxViewImage: viewImage,
    ...(options.hostStorageNamespaces ? { hostStorageNamespaces: options.hostStorageNamespaces } : {}),
    ...(webhook.settings
      ? {
          conversionWebhook: {
            ...webhook.settings,
            onReview: (event: { result: string }) => conversionFailures.inc({ result: event.result }),
          },
        }
      : {}),
    ...(options.leaderElect ? { leaderElection: { namespace: leaseNamespace, leaseName: LEASE_NAME } } : {}),
    onTargetRequest: (request, server) => metrics.observeRequest(request, new URL(server).host),
    onReconcile: (result, seconds) => metrics.observeReconcile(CONTROLLER_NAME, result, seconds),
    onQueueDepth: (depth) => metrics.setQueueDepth(CONTROLLER_NAME, depth),
    onReconcileStep: (step, seconds) => metrics.observeReconcileStep(CONTROLLER_NAME, step, seconds),
    onFluxQueue: (namespace, name, queue) => metrics.setFluxQueue(namespace, name, queue),
    onLeadershipChange: (leading) => {
      metrics.setLeader(LEASE_NAME, leading);
      // A replica that lost the lease must stop writing at once; its Deployment restarts it.
      if (!leading) finish(1);
    },
  });
  const behindService = webhook.settings?.service !== undefined;
  const checks = readinessChecks(manager, behindService);
  const servers = await startObservabilityServers({
    metricsAddr: options.metricsAddr,
    healthAddr: options.healthAddr,
    registry: metrics.registry,
    ...(options.metricsSecure ? await secureMetrics(clients.transport) : {}),
    checks: Object.fromEntries(Object.entries(checks).map(([name, check]) => [name, check.ready])),
  });
  log.info(
    {
      identity: manager.identity,
      namespaces: options.namespaces.length > 0 ? options.namespaces : 'all',
      leaderElection: options.leaderElect ? `${leaseNamespace}/${LEASE_NAME}` : 'off',
      burstTargetImage: image,
      fluxViewImage: viewImage,
      conversionWebhook: manager.conversionWebhook
        ? webhook.settings?.service
          ? `service ${webhook.settings.service.namespace}/${webhook.settings.service.name}`
          : 'url'
        : 'off',
      metricsPort: servers.metricsPort,
      healthPort: servers.healthPort,
    },
    'flux-operator starting',
  );
  const onSignal = (signal: string) => {
    log.info({ signal }, 'stopping');
    finish(0);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const sayReady = () =>
    log.info(
      {
        secondsSinceStart: Number((performance.now() / 1000).toFixed(2)),
        ...(manager.conversionWebhook
          ? { conversionWebhook: describeClientConfig(manager.conversionWebhook.clientConfig()) }
          : {}),
      },
      'flux-operator ready',
    );
  try {
    await manager.start();
    const failing = await waitUntilReady(checks, readyTimeoutMs, finished);
    if (failing?.length === 0) sayReady();
    else if (failing !== undefined) {
      const message = notReadyMessage(checks, failing, readyTimeoutMs);
      // Out of cluster someone waits on this process: say what did not answer and stop. In cluster
      // the kubelet's probes keep the pod out of its Service meanwhile; restarting would add nothing.
      if (!behindService) {
        log.error({ failing }, message);
        throw new Error(message);
      }
      log.warn({ failing }, message);
      void waitUntilReady(checks, Number.POSITIVE_INFINITY, finished).then(
        (still) => still?.length === 0 && sayReady(),
      );
    }
  } catch (error) {
    // Nothing runs without it (the webhook could not listen, or was never converted through): leave
    // nothing open behind.
    await manager.stop();
    await servers.close();
    throw error;
  }
  const code = await finished;
  await manager.stop();
  await servers.close();
  log.info({ exitCode: code }, 'flux-operator stopped');
  return code;
}
