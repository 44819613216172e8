// The operator as users install it, for the e2e scenarios: its image on the real node, its Deployment
// from `flux-operator install --with-deployment` or the Helm chart, read through the API and its pods.
import { execFile } from 'node:child_process';
import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { METRICS_PORT, METRICS_READER_ROLE } from '../../src/deploy/index.ts';
import { waitFor } from './cluster.ts';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** The image `npm run image:operator` builds and loads into the real node. */
export const OPERATOR_IMAGE = 'localhost/flux-operator-ts:dev';
export const LEASE_NAME = 'flux-operator-leader';

/** `flux-operator <args>` as a user runs it; resolves with its exit code and output, never rejects. */
export async function fluxOperatorCli(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? String(error),
    };
  }
}

export async function deploymentPods(
  clients: ApiClients,
  namespace: string,
  deployment: string,
): Promise<V1Pod[]> {
  const found = await readDeployment(clients, namespace, deployment);
  const selector = Object.entries(found.spec?.selector.matchLabels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const pods = await clients.core.listNamespacedPod({ namespace, labelSelector: selector });
  return pods.items.filter((pod) => !pod.metadata?.deletionTimestamp);
}

async function readDeployment(clients: ApiClients, namespace: string, name: string): Promise<V1Deployment> {
  return (await clients.objects.read({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
  })) as V1Deployment;
}

function ready(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Waits until `count` pods of the Deployment are Ready (through the operator's own probes). */
export async function readyPods(
  clients: ApiClients,
  namespace: string,
  deployment: string,
  count: number,
  timeoutMs = 120_000,
): Promise<V1Pod[]> {
  return waitFor(
    async () => {
      const pods = (await deploymentPods(clients, namespace, deployment)).filter(ready);
      return pods.length === count ? pods : undefined;
    },
    { what: `${count} Ready pods of ${namespace}/${deployment}`, timeoutMs },
  );
}

/** The Lease's holder (the leader's identity starts with its pod's name, the pod's hostname). */
export async function leaseHolder(clients: ApiClients, namespace: string): Promise<string | undefined> {
  const lease = await clients.coordination.readNamespacedLease({ name: LEASE_NAME, namespace });
  return lease.spec?.holderIdentity ?? undefined;
}

/**
 * GET https://<pod IP>:8443/metrics with a bearer token (the real node's pods are reachable from this
 * machine); the server's certificate is its own, made at start, so it is not verified (as Prometheus
 * scrapes kube-rbac-proxy). Rejects with the status of anything but 200.
 */
export function scrape(pod: V1Pod, token?: string): Promise<string> {
  const ip = pod.status?.podIP;
  if (!ip) return Promise.reject(new Error(`pod ${pod.metadata?.name} has no IP yet`));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: ip,
        port: METRICS_PORT,
        path: '/metrics',
        timeout: 5_000,
        rejectUnauthorized: false,
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(body) : reject(new Error(`/metrics: HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('/metrics: timed out')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * A token of a ServiceAccount `name` in `namespace`, bound to the ClusterRole that may read /metrics
 * when `reader` (as an administrator binds Prometheus's); the binding goes with `cleanUp`.
 */
export async function metricsToken(
  clients: ApiClients,
  namespace: string,
  name: string,
  reader: boolean,
): Promise<{ token: string; cleanUp: () => Promise<void> }> {
  await clients.core
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name } } })
    .catch(() => undefined);
  const bindingObject = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${METRICS_READER_ROLE}-${namespace}-${name}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: METRICS_READER_ROLE },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  };
  if (reader) {
    await clients.objects.create(bindingObject);
  }
  const requested = await clients.core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 600 } },
  });
  return {
    token: requested.status?.token ?? '',
    cleanUp: async () => {
      if (reader) await clients.objects.delete(bindingObject).catch(() => undefined);
    },
  };
}

/** The sum of a counter's samples whose labels include every one given. */
export function counterSum(metrics: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
