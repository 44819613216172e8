/**
 * Connecting to a burst target: from a BurstTarget to API clients of the target cluster, or a
 * reason and message for its Connected condition.
 *
 * For `provider: kubeconfig`: read the Secret, check the kubeconfig (target-kubeconfig.ts: no
 * command plugins, no file paths), ask the server for `/version` with a short timeout, then check
 * that the credentials may create MiniClusters and Secrets in the target namespace
 * (SelfSubjectAccessReviews: a wrong Role shows now, not at the first burst). GKE and EKS targets
 * are connected by their providers, passed in as `providers`.
 */
import type {
  KubeConfig,
  V1APIResourceList,
  V1Secret,
  V1SelfSubjectAccessReview,
  VersionInfo,
} from '@kubernetes/client-node';
import {
  DEFAULT_KUBECONFIG_KEY,
  GROUP,
  PLURAL,
  VERSION_V1ALPHA1,
  defaultBurstTarget,
  type BurstTarget,
  type DefaultedBurstTarget,
} from '../api/index.ts';
import { apiErrorCode, describeApiError } from '../kube/api-errors.ts';
import type { ApiClients } from '../kube/api-clients.ts';
import { apiClientsFor } from '../kube/clients.ts';
import type { AnsweredRequest, RequestObserver } from '../kube/transport.ts';
import { installOperatorObjects, type InstallOperator } from './install-operator.ts';
import { classifyProbeError, failure, type ProbeContext, type TargetFailure } from './target-errors.ts';
import { checkKubeconfig } from './target-kubeconfig.ts';
import { namespaceOf } from '../api/index.ts';

export type { TargetFailure, TargetFailureReason } from './target-errors.ts';

/** How long the target has to answer each request of a check. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** Reads a Secret of the local cluster; undefined when it does not exist. */
export type ReadSecret = (namespace: string, name: string) => Promise<V1Secret | undefined>;

/** A kubeconfig obtained by a cloud provider (GKE, EKS) for the cluster it manages. */
export type ProviderKubeConfig =
  | {
      readonly ok: true;
      readonly config: KubeConfig;
      /** Where the credentials come from, for messages (`GKE cluster p/l/name`). */
      readonly source: string;
      readonly user: string;
    }
  | TargetFailure;

export type ProviderConnector = (target: DefaultedBurstTarget) => Promise<ProviderKubeConfig>;

export interface ConnectTargetOptions {
  readonly target: BurstTarget | DefaultedBurstTarget;
  readonly readSecret: ReadSecret;
  readonly timeoutMs?: number;
  /** Connectors of the cloud providers; a target whose provider has none is UnsupportedProvider. */
  readonly providers?: Partial<Record<'gke' | 'eks', ProviderConnector>>;
  /** How a kubeconfig target with installOperator gets the operator; `installOperatorObjects` by default. */
  readonly installOperator?: InstallOperator;
  /** Sees every request of the connection's clients, with the target's API server URL (the metrics). */
  readonly onRequest?: (request: AnsweredRequest, server: string) => void;
}

export interface TargetConnected {
  readonly ok: true;
  readonly clients: ApiClients;
  /** The API server URL reached. */
  readonly server: string;
  /** The Kubernetes version it reported (gitVersion, e.g. v1.35.4). */
  readonly version: string;
  /** Namespace on the target where burst MiniClusters go. */
  readonly namespace: string;
}

export type TargetConnection = TargetConnected | TargetFailure;

function secretText(secret: V1Secret, key: string): string | undefined {
  const encoded = secret.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}

/** The kubeconfig of a `provider: kubeconfig` target, checked, or why not. */
export async function kubeconfigFromSecret(
  target: DefaultedBurstTarget,
  readSecret: ReadSecret,
): Promise<ProviderKubeConfig> {
  const namespace = namespaceOf(target);
  const source = target.spec.kubeconfig;
  if (!source) {
    return failure('InvalidKubeconfig', 'spec.kubeconfig is required when provider is kubeconfig');
  }
  const key = source.key ?? DEFAULT_KUBECONFIG_KEY;
  const secretName = `${namespace}/${source.secretName}`;
  let secret: V1Secret | undefined;
  try {
    secret = await readSecret(namespace, source.secretName);
  } catch (error) {
    if (apiErrorCode(error) !== 403) throw error;
    return failure(
      'Forbidden',
      `the operator may not read Secret ${secretName} (${describeApiError(error)}); grant its ServiceAccount get on secrets in ${namespace}`,
    );
  }
  if (!secret) {
    return failure(
      'SecretMissing',
      `Secret ${secretName} (spec.kubeconfig.secretName) does not exist; create it with the target's kubeconfig under the key ${key}, e.g. kubectl create secret generic ${source.secretName} -n ${namespace} --from-file=${key}=<kubeconfig>`,
    );
  }
  const text = secretText(secret, key);
  if (text === undefined) {
    const keys = Object.keys(secret.data ?? {}).sort();
    return failure(
      'KeyMissing',
      `Secret ${secretName} has no key ${key} (spec.kubeconfig.key)${keys.length > 0 ? `; it has ${keys.join(', ')}` : ''}; add the kubeconfig under ${key} or set spec.kubeconfig.key`,
    );
  }
  const checked = checkKubeconfig(text, `Secret ${secretName} key ${key}`);
  if (!checked.ok) return failure('InvalidKubeconfig', checked.message);
  return { ok: true, config: checked.config, source: `Secret ${secretName} key ${key}`, user: checked.user };
}

/** Resources the burst controller creates on the target: a denial now is clearer than at burst time. */
const REQUIRED_ACCESS: readonly { group: string; resource: string; what: string }[] = [
  { group: GROUP, resource: PLURAL, what: 'MiniClusters' },
  { group: '', resource: 'secrets', what: 'Secrets' },
];

async function deniedAccess(clients: ApiClients, namespace: string, timeoutMs: number): Promise<string[]> {
  const reviews = await Promise.all(
    REQUIRED_ACCESS.map(async (access) => {
      const body: V1SelfSubjectAccessReview = {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: { namespace, verb: 'create', group: access.group, resource: access.resource },
        },
      };
      const review = await clients.transport.request<V1SelfSubjectAccessReview>(
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        { body, timeoutMs },
      );
      return { access, allowed: review.status?.allowed === true };
    }),
  );
  return reviews.filter((review) => !review.allowed).map((review) => review.access.what);
}

/** Asks the target for its version and checks the credentials' permissions. */
export async function probeTarget(
  config: KubeConfig,
  namespace: string,
  context: ProbeContext,
  onRequest?: RequestObserver,
): Promise<TargetConnection> {
  // The clients the burst controller keeps: the probe's requests are the connection's first.
  const clients = apiClientsFor(config, onRequest ? { onRequest } : {});
  let version: string;
  try {
    const info = await clients.transport.request<VersionInfo>('GET', '/version', {
      timeoutMs: context.timeoutMs,
    });
    version = info.gitVersion;
    const denied = await deniedAccess(clients, namespace, context.timeoutMs);
    if (denied.length > 0) {
      return failure(
        'Forbidden',
        `user ${JSON.stringify(context.user)} of ${context.source} may not create ${denied.join(' or ')} in namespace ${namespace} on ${context.server}; bind it to a Role there that allows it (or change spec.namespace)`,
      );
    }
  } catch (error) {
    return classifyProbeError(error, context);
  }
  return { ok: true, clients, server: context.server, version, namespace };
}

/**
 * Connects to the target: its kubeconfig (from the Secret or the provider), then a probe. Resolves
 * to a failure for everything the user can fix; throws only when the local API fails (reading the
 * Secret), which the caller retries.
 */
export async function connectTarget(options: ConnectTargetOptions): Promise<TargetConnection> {
  const target = defaultBurstTarget(options.target as BurstTarget);
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const provider = target.spec.provider;
  let source: ProviderKubeConfig;
  if (provider === 'kubeconfig') {
    source = await kubeconfigFromSecret(target, options.readSecret);
  } else {
    const connector = options.providers?.[provider];
    if (!connector) {
      return failure(
        'UnsupportedProvider',
        `provider ${provider} is not available in this operator (no ${provider} connector is configured); use provider: kubeconfig with a kubeconfig Secret of the cluster`,
      );
    }
    source = await connector(target);
  }
  if (!source.ok) return source;
  const server = source.config.getCurrentCluster()?.server ?? '';
  const context = { server, source: source.source, user: source.user, timeoutMs };
  const { onRequest } = options;
  const probed = await probeTarget(
    source.config,
    target.spec.namespace,
    context,
    onRequest && ((request) => onRequest(request, server)),
  );
  if (!probed.ok) return probed;
  return checkOperator(source.config, target, probed, context, options.installOperator);
}

/** Whether the cluster serves the MiniCluster resource (discovery, which every user may read). */
export async function servesMiniClusters(clients: ApiClients, timeoutMs: number): Promise<boolean> {
  try {
    const list = await clients.transport.request<V1APIResourceList>(
      'GET',
      `/apis/${GROUP}/${VERSION_V1ALPHA1}`,
      { timeoutMs },
    );
    return list.resources.some((resource) => resource.name === PLURAL);
  } catch (error) {
    if (apiErrorCode(error) === 404) return false;
    throw error;
  }
}

/**
 * Burst MiniClusters only run where an operator renders them: a target that does not serve
 * MiniClusters is not connected. A kubeconfig target with installOperator gets the operator here;
 * gke and eks connectors installed it already, so there it is only on its way.
 */
async function checkOperator(
  config: KubeConfig,
  target: DefaultedBurstTarget,
  connected: TargetConnected,
  context: ProbeContext,
  install: InstallOperator = (config) => installOperatorObjects(config),
): Promise<TargetConnection> {
  try {
    if (await servesMiniClusters(connected.clients, context.timeoutMs)) return connected;
  } catch (error) {
    return classifyProbeError(error, context);
  }
  const served = `${GROUP}/${VERSION_V1ALPHA1} ${PLURAL}`;
  if (target.spec.provider !== 'kubeconfig') {
    return failure(
      'OperatorInstalling',
      `the operator is installed on ${context.server}; waiting for it to serve ${served}`,
    );
  }
  if (!target.spec.kubeconfig?.installOperator) {
    return failure(
      'OperatorMissing',
      `${context.server} does not serve ${served}, so nothing there would run burst MiniClusters; install the operator there (flux-operator install --with-deployment --kubeconfig <that cluster's kubeconfig>) or set spec.kubeconfig.installOperator: true`,
    );
  }
  try {
    await install(config, target);
  } catch (error) {
    const detail = apiErrorCode(error) === undefined ? (error as Error).message : describeApiError(error);
    return failure(
      'InstallFailed',
      `installing the operator on ${context.server} with the credentials of ${context.source} failed: ${detail}; they need rights to create CRDs, ClusterRoles and a Deployment there (or install it yourself and unset installOperator); it is tried again at the next check`,
    );
  }
  return failure(
    'OperatorInstalling',
    `installed the operator on ${context.server}; waiting for it to serve ${served}`,
  );
}
