// What a cluster's Kueue reads: its Configuration (Kueue's Configuration API) and its kubeconfig, and
// where its files are. Pure functions.
import path from 'node:path';
import { parse, stringify } from 'yaml';

export interface KueuePorts {
  /** The webhook server (HTTPS), which the API server calls. */
  readonly webhook: number;
  /** /healthz and /readyz (plain HTTP). */
  readonly health: number;
  /** /metrics (HTTPS, behind TokenReviews and SubjectAccessReviews). */
  readonly metrics: number;
}

/** The integrations Kueue manages here: batch/v1 Jobs (a MiniCluster's pods are an indexed Job's). */
export const KUEUE_INTEGRATIONS = ['batch/job'] as const;

export interface KueueFiles {
  readonly configFile: string;
  readonly kubeconfig: string;
  /** tls.crt and tls.key of the webhook and metrics servers, and ca.crt, the CA that signed them. */
  readonly certDir: string;
  readonly pidDir: string;
  readonly logDir: string;
}

export function kueueFiles(stateDir: string): KueueFiles {
  return {
    configFile: path.join(stateDir, 'config.yaml'),
    kubeconfig: path.join(stateDir, 'kubeconfig'),
    certDir: path.join(stateDir, 'certs'),
    pidDir: path.join(stateDir, 'pids'),
    logDir: path.join(stateDir, 'logs'),
  };
}

/** The ports in the order the port registry hands them out (ports.ts: reservePorts). */
export function kueuePorts([webhook, health, metrics]: readonly number[]): KueuePorts {
  if (webhook === undefined || health === undefined || metrics === undefined) {
    throw new Error('Kueue needs three ports: webhook, health and metrics');
  }
  return { webhook, health, metrics };
}

/**
 * Kueue's all-or-nothing start (its Configuration's `waitForPodsReady`): an admitted Job whose pods are
 * not all Ready (or succeeded) within `timeout` of its admission is evicted (reason PodsReadyTimeout),
 * suspended, and queued again after a backoff; so quota is not held by brokers that never start (an
 * image that is not there, a pod that cannot be scheduled). Kueue v0.17 has one timeout for all its
 * queues (no per-queue or per-workload override), so it must exceed the slowest start of a MiniCluster
 * that is fine: real Flux on the real node of a loaded 2-core machine takes 30-60 s to be Ready (kwok's
 * pods are Ready at once), hence twice that. The backoff starts at 10 s rather than Kueue's 60 s (then
 * 20 s, 40 s, ... up to 5 min, not Kueue's hour), so an evicted MiniCluster is admitted again while a
 * developer (or a test) still watches; the retries go on without a limit (Kueue's default), as a
 * MiniCluster whose pods never get ready is the user's to fix or delete. `blockAdmission` stays off:
 * on, every ClusterQueue admits nothing while any admitted Job has unready pods, so one MiniCluster
 * whose image is missing would stop all the others for the whole timeout.
 */
export const KUEUE_WAIT_FOR_PODS_READY = {
  timeout: '120s',
  // The same as the timeout (Kueue's default, said here): a running Job with a failed pod gets as long
  // to have its replacement Ready as a new one gets to start.
  recoveryTimeout: '120s',
  blockAdmission: false,
  requeuingStrategy: {
    // Evicted ones queue again behind those that waited meanwhile, from the time of their eviction.
    timestamp: 'Eviction',
    backoffBaseSeconds: 10,
    backoffMaxSeconds: 300,
  },
} as const;

/**
 * Kueue's Configuration: every server on loopback, the webhook's certificate from `certDir` rather than
 * Kueue's own certificate management (which expects the Secret mounted into a pod), and no leader
 * election: alone in its cluster, as the control plane's controller manager and scheduler are, Kueue
 * would otherwise exit when the API server is away longer than its lease, and nothing would start it
 * again. The visibility server is off: it is an aggregated API server that the API server reaches
 * through a Service, which a process of this host cannot back, and it would listen on every interface.
 * Pods must be Ready in time (KUEUE_WAIT_FOR_PODS_READY).
 */
export function kueueConfiguration(ports: KueuePorts, certDir: string, namespace: string): string {
  return stringify({
    apiVersion: 'config.kueue.x-k8s.io/v1beta2',
    kind: 'Configuration',
    namespace,
    health: { healthProbeBindAddress: `127.0.0.1:${ports.health}` },
    metrics: { bindAddress: `127.0.0.1:${ports.metrics}` },
    webhook: { host: '127.0.0.1', port: ports.webhook, certDir },
    leaderElection: { leaderElect: false },
    internalCertManagement: { enable: false },
    featureGates: { VisibilityOnDemand: false },
    integrations: { frameworks: [...KUEUE_INTEGRATIONS] },
    waitForPodsReady: KUEUE_WAIT_FOR_PODS_READY,
  });
}

/** The API server as the cluster's admin kubeconfig names it: its CA as a file or inline (base64). */
export interface ApiServer {
  readonly server: string;
  readonly caFile?: string;
  readonly caData?: string;
}

/** A kubeconfig for the API server as a ServiceAccount (`user` names it) with its token. */
export function tokenKubeconfig(apiServer: ApiServer, token: string, user: string): string {
  const cluster = {
    server: apiServer.server,
    ...(apiServer.caFile === undefined ? {} : { 'certificate-authority': apiServer.caFile }),
    ...(apiServer.caData === undefined ? {} : { 'certificate-authority-data': apiServer.caData }),
  };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'kueue', context: { cluster: 'local', user } }],
    'current-context': 'kueue',
  });
}

/** The ports a Configuration written by kueueConfiguration names (parsed), or undefined when it is not one. */
export function portsOfConfiguration(doc: unknown): KueuePorts | undefined {
  const config = doc as {
    apiVersion?: unknown;
    kind?: unknown;
    webhook?: { port?: unknown };
    health?: { healthProbeBindAddress?: unknown };
    metrics?: { bindAddress?: unknown };
  } | null;
  if (config?.kind !== 'Configuration' || typeof config.apiVersion !== 'string') return undefined;
  if (!config.apiVersion.startsWith('config.kueue.x-k8s.io/')) return undefined;
  const port = (address: unknown) =>
    typeof address === 'string' ? Number(/:(\d+)$/.exec(address)?.[1] ?? NaN) : NaN;
  const ports = {
    webhook: typeof config.webhook?.port === 'number' ? config.webhook.port : NaN,
    health: port(config.health?.healthProbeBindAddress),
    metrics: port(config.metrics?.bindAddress),
  };
  return Object.values(ports).every((p) => p > 0) ? ports : undefined;
}

/** The ports of a Configuration file's text. */
export function portsOfConfigurationText(text: string): KueuePorts | undefined {
  return portsOfConfiguration(parse(text));
}
