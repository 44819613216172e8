// An API server outage under a running operator, on a local cluster of its own: what the outage test
// (test/integration/api-server-outage.test.ts) and `npm run bench -- --outage` (test/bench/outage.ts)
// both do. The cluster with its own operator; the kube-apiserver killed for OUTAGE_MS with its port held
// (every connection reset); started again the way a user would (`cluster:up` repairs the cluster), timed
// to its readiness by the operator's own /readyz probe; and the create/scale/delete work the operator
// must reconcile, timed until every change is in the Jobs.
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig, type V1Job } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION_V1ALPHA1, miniClusterCrd } from '../../src/api/index.ts';
import { readyzProbe, type ReadinessProbe } from '../../src/runtime/api-server-recovery.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { deleteCustomObject } from '../../src/kube/custom-objects.ts';
import { apiClientsFor } from '../../src/kube/clients.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { down, status, up, type Progress, type UpResult } from '../../workbench/src/localcluster/index.ts';
import { waitFor } from './cluster.ts';
import { installBurstTargetCrd } from './burst-target.ts';
import { applyMiniCluster, miniClusterObject, scaleMiniCluster, waitForCondition } from './operator.ts';
import { spawnOperator, type OperatorProcess } from './operator-process.ts';

/** Longer than the watches' former 30 s backoff cap and kube-controller-manager's 15 s lease. */
export const OUTAGE_MS = 40_000;
/** The label of everything the operator makes. */
export const OWNED = 'app.kubernetes.io/managed-by=flux-operator';
/** The longest wait for the operator's part (a watch left to its 30 s backoff timer fails it). */
const RECONCILE_TIMEOUT_MS = 30_000;
/** The longest wait for the API server to answer /readyz after `cluster:up` starts it again. */
const READY_TIMEOUT_MS = 60_000;

export interface OutageCluster {
  name: string;
  namespace: string;
  kubeconfig: string;
  /** The API server's URL (its port is held while it is away). */
  server: string;
  api: ApiClients;
  /** The same /readyz check the operator's recovery makes. */
  ready: ReadinessProbe;
  operator: OperatorProcess;
}

/**
 * Starts (or repairs) the local cluster `name`, installs the CRDs, makes `namespace` and starts an
 * operator watching it, with its own conversion webhook (such a cluster has no shared one).
 */
export async function startOutageCluster(
  name: string,
  namespace: string,
  progress: Progress,
): Promise<OutageCluster> {
  const { kubeconfig, status: st } = await up({ name, progress });
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  const api = apiClientsFor(config);
  const ready = readyzProbe(apiClientsFor(config).transport, 1_000);
  await serverSideApply(api.objects, miniClusterCrd() as never, 'flux-operator-tests');
  await installBurstTargetCrd(api);
  await api.core.createNamespace({ body: { metadata: { name: namespace } } });
  await waitFor(() => api.core.readNamespacedServiceAccount({ name: 'default', namespace }), {
    what: 'the default ServiceAccount',
  });
  const operator = await spawnOperator(namespace, ['--webhook-addr', '127.0.0.1:0'], { kubeconfig });
  await waitForOwnConversion(api, namespace);
  return { name, namespace, kubeconfig, server: st.apiserver ?? '', api, ready, operator };
}

/**
 * Until the API server converts through the operator's webhook. The CRD is applied before the operator
 * runs, so it names the in-cluster Service at first; the operator points it at its own URL once that
 * answers, and the API server takes the change up a moment later. A v1alpha1 create (dry run: nothing
 * stored) needs the conversion to v1alpha2; applied before that, the test's first MiniCluster met
 * `service "flux-operator-webhook" not found` on a loaded machine.
 */
async function waitForOwnConversion(api: ApiClients, namespace: string): Promise<void> {
  const body = miniClusterObject(namespace, 'conversion-probe', { size: 1 });
  await waitFor(
    () =>
      api.custom
        .createNamespacedCustomObject({
          group: GROUP,
          version: VERSION_V1ALPHA1,
          plural: PLURAL,
          namespace,
          body,
          dryRun: 'All',
        })
        .then(() => true),
    { what: "v1alpha1 requests to convert through the operator's own webhook", timeoutMs: 30_000 },
  );
}

/** Stops the operator and removes the cluster. */
export async function stopOutageCluster(
  cluster: OutageCluster | undefined,
  name: string,
  progress: Progress,
): Promise<void> {
  await cluster?.operator.kill('SIGTERM');
  await down({ name, progress });
}

/** The pid of a control-plane component of the cluster; throws when it is not running. */
export function pidOf(cluster: string, component: string): number {
  const st = status({ name: cluster });
  const found = st.processes.find((p) => p.command.split(' ')[0]?.endsWith(`/${component}`));
  if (!found) throw new Error(`${component} is not running: ${JSON.stringify(st.components)}`);
  return found.pid;
}

/**
 * Kills the API server and holds its port for `outageMs` (a cluster another test creates meanwhile
 * could take it): every connection is reset, as a server that is away. `whileDown` runs in that time.
 */
export async function apiServerAway(
  cluster: OutageCluster,
  outageMs: number,
  whileDown: () => Promise<void> = async () => undefined,
): Promise<void> {
  process.kill(pidOf(cluster.name, 'kube-apiserver'), 'SIGKILL');
  const killedAt = Date.now();
  const port = Number(new URL(cluster.server).port);
  const blocker = createServer((socket) => socket.destroy());
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        blocker.once('error', () => resolve(false));
        blocker.listen(port, '127.0.0.1', () => resolve(true));
      }),
    { what: `port ${port} to be free`, timeoutMs: 10_000, intervalMs: 100 },
  );
  try {
    await whileDown();
    await sleep(outageMs - (Date.now() - killedAt));
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
}

export interface Restart {
  /** `cluster:up`'s repair, still under way (it starts the other components afresh after the server). */
  repairing: Promise<UpResult>;
  /** When /readyz first answered (Date.now()). */
  readyAt: number;
  /** From `cluster:up`'s start to the API server's readiness: the server's own part. */
  apiServerReadyMs: number;
}

/** Starts the API server again as a user would (`cluster:up`), and waits for its readiness. */
export async function restartApiServer(cluster: OutageCluster, progress: Progress): Promise<Restart> {
  const startedAt = Date.now();
  const repairing = up({ name: cluster.name, progress });
  // Not left unhandled while the caller is busy timing the operator; the caller awaits it.
  repairing.catch(() => undefined);
  await waitFor(() => cluster.ready(), {
    what: 'the API server to be ready',
    timeoutMs: READY_TIMEOUT_MS,
    intervalMs: 50,
  });
  const readyAt = Date.now();
  return { repairing, readyAt, apiServerReadyMs: readyAt - startedAt };
}

/** The MiniClusters of one create/scale/delete round, their names under a prefix of the round's. */
export interface WorkNames {
  /** The MiniClusters made (and Ready) before the work. */
  existing: string[];
  /** Left alone by the work. */
  steady: string[];
  /** Scaled from 3 to 5. */
  scaled: string;
  /** Deleted. */
  doomed: string;
  /** Its Job deleted (the operator makes it again). */
  jobless: string;
  /** Created by the work (size 2). */
  created: string[];
}

export function workNames(prefix = ''): WorkNames {
  const steady = [`${prefix}steady-a`, `${prefix}steady-b`];
  const scaled = `${prefix}scaled`;
  const doomed = `${prefix}doomed`;
  const jobless = `${prefix}jobless`;
  return {
    existing: [...steady, scaled, doomed, jobless],
    steady,
    scaled,
    doomed,
    jobless,
    created: [`${prefix}new-a`, `${prefix}new-b`],
  };
}

/** Every MiniCluster after the work: the ones left, changed and created. */
export function survivors(names: WorkNames): string[] {
  return [...names.steady, names.scaled, names.jobless, ...names.created];
}

/** Makes the existing MiniClusters (size 3 of at most 5, interactive) and waits until each is Ready. */
export async function prepareMiniClusters(
  api: ApiClients,
  namespace: string,
  names: WorkNames,
  timeoutMs: number,
): Promise<void> {
  for (const name of names.existing) {
    await applyMiniCluster(
      api,
      miniClusterObject(namespace, name, { size: 3, maxSize: 5, interactive: true }),
    );
  }
  const by = Date.now() + timeoutMs;
  for (const name of names.existing) {
    await waitForCondition(api, namespace, name, 'Ready', 'True', Math.max(1_000, by - Date.now()));
  }
}

export async function jobOf(api: ApiClients, namespace: string, name: string): Promise<V1Job | undefined> {
  try {
    return await api.batch.readNamespacedJob({ name, namespace });
  } catch {
    return undefined;
  }
}

/**
 * The work: two MiniClusters created, one scaled to 5, one deleted and one's Job deleted, all at once;
 * then the wait for the operator's part (new Jobs, the scaled Job, the deleted Job made again). Returns
 * the milliseconds from `from` (the API server's readiness, or the work's start on a healthy cluster)
 * until every change was in the Jobs.
 */
export async function timeWork(
  api: ApiClients,
  namespace: string,
  names: WorkNames,
  from: number,
): Promise<number> {
  await Promise.all([
    ...names.created.map((name) =>
      applyMiniCluster(api, miniClusterObject(namespace, name, { size: 2, interactive: true })),
    ),
    scaleMiniCluster(api, namespace, names.scaled, 5),
    deleteCustomObject(api.custom, 'miniclusters', namespace, names.doomed),
    api.batch.deleteNamespacedJob({ name: names.jobless, namespace, propagationPolicy: 'Background' }),
  ]);
  await waitFor(
    async () => {
      const created = await Promise.all(names.created.map((name) => jobOf(api, namespace, name)));
      const [scaled, jobless] = await Promise.all(
        [names.scaled, names.jobless].map((name) => jobOf(api, namespace, name)),
      );
      return (
        created.every((job) => job !== undefined) &&
        scaled?.spec?.parallelism === 5 &&
        jobless !== undefined &&
        jobless.metadata?.deletionTimestamp === undefined
      );
    },
    { what: 'the operator to reconcile every change', timeoutMs: RECONCILE_TIMEOUT_MS, intervalMs: 50 },
  );
  return Date.now() - from;
}
