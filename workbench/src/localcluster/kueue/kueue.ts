// Real Kueue in a local cluster: its manager, built from its Go module, runs on this host beside the
// control plane as its own ServiceAccount, with its CRDs, RBAC and webhook configurations from the same
// module, the webhooks pointing at its loopback port. Started with the cluster on request, stopped with it.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { apiClients, type ApiClients, type ObjectApplier } from '../../../../src/kube/api-clients.ts';
import { isNotFound } from '../../../../src/kube/api-errors.ts';
import { accessFromKubeconfig } from '../../../../src/kube/cluster-access.ts';
import type { Progress } from '../../tooling/hack-script.ts';
import { until, within } from '../poll.ts';
import { isAlive } from '../procfs.ts';
import { reservePorts } from '../ports.ts';
import { ensureKueueBuilt } from './build.ts';
import { KUEUE_CREDENTIALS_DAYS, writeKueueCertificates } from './certs.ts';
import {
  kueueConfiguration,
  kueueFiles,
  kueuePorts,
  portsOfConfigurationText,
  tokenKubeconfig,
  type KueueFiles,
  type KueuePorts,
} from './config.ts';
import type { KubeObject } from './manifests.ts';
import { kueueModuleDir, readKueueManifests, readPlacement, type KueueManifests } from './module.ts';
import { KUEUE_VERSION, kueueBinary, kueueStateDir } from './paths.ts';
import { kueueLog, kueuePid, kueueUnavailable, startKueue, stopKueue } from './process.ts';
import { kueueReadyz, kueueWebhookAnswers } from './ready.ts';

const FIELD_MANAGER = 'flux-operator-localcluster';
const CALL_TIMEOUT_MS = 30_000;

export interface KueueOptions {
  /** kwokctl's folder of the cluster; Kueue's state goes in its `kueue/`. */
  clusterDir: string;
  /** kwokctl's work folder of the state folder (the port registry reads the clusters' configs there). */
  workdir: string;
  /** The cluster's admin kubeconfig. */
  kubeconfig: string;
  progress: Progress;
  env: NodeJS.ProcessEnv;
  /** How long to wait for Kueue to become ready (default 180 s). */
  timeoutMs?: number;
}

export interface KueueStatus {
  version: string;
  pid?: number;
  /** The manager's process lives. */
  running: boolean;
  ports?: KueuePorts;
  /** Its webhook server, as the webhook configurations call it. */
  webhookUrl?: string;
  log: string;
}

function filesOf(clusterDir: string): KueueFiles {
  return kueueFiles(kueueStateDir(clusterDir));
}

function portsOf(files: KueueFiles): KueuePorts | undefined {
  return existsSync(files.configFile)
    ? portsOfConfigurationText(readFileSync(files.configFile, 'utf8'))
    : undefined;
}

/** Whether the cluster has Kueue's state (it was started with Kueue), without asking the API server. */
export function kueueExists(clusterDir: string): boolean {
  return existsSync(filesOf(clusterDir).configFile);
}

export function kueueStatus(clusterDir: string, env: NodeJS.ProcessEnv = process.env): KueueStatus {
  const files = filesOf(clusterDir);
  const pid = kueuePid(files, kueueBinary(env));
  const ports = portsOf(files);
  return {
    version: KUEUE_VERSION,
    ...(pid === undefined ? {} : { pid }),
    running: pid !== undefined,
    ...(ports === undefined ? {} : { ports, webhookUrl: `https://127.0.0.1:${ports.webhook}` }),
    log: kueueLog(files),
  };
}

/** Server-side apply of the object as it is: CRDs' schemas keep the fields the client's models lack. */
function apply(objects: ObjectApplier, object: KubeObject): Promise<KubernetesObject> {
  return within(
    `the API server (applying ${object.kind} ${object.metadata.name})`,
    CALL_TIMEOUT_MS,
    objects.apply(object as KubernetesObject, FIELD_MANAGER),
  );
}

/** A ServiceAccount token for Kueue, valid as long as the cluster's certificates are. */
async function serviceAccountToken({ core }: ApiClients, account: KueueManifests['serviceAccount']) {
  const request = await within(
    'the API server (a token for Kueue)',
    CALL_TIMEOUT_MS,
    core.createNamespacedServiceAccountToken({
      ...account,
      body: { spec: { audiences: [], expirationSeconds: KUEUE_CREDENTIALS_DAYS * 86_400 } },
    }),
  );
  const token = request.status?.token;
  if (!token) throw new Error(`the API server gave no token for ${account.namespace}/${account.name}`);
  return token;
}

function writeKueueKubeconfig(kc: KubeConfig, file: string, token: string, user: string): void {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the cluster kubeconfig names no current cluster');
  const apiServer = {
    server: cluster.server,
    ...(cluster.caFile === undefined ? {} : { caFile: cluster.caFile }),
    ...(cluster.caData === undefined ? {} : { caData: cluster.caData }),
  };
  writeFileSync(file, tokenKubeconfig(apiServer, token, user), { mode: 0o600 });
}

async function waitEstablished({ apiextensions }: ApiClients, crds: readonly KubeObject[], deadline: number) {
  for (const crd of crds) {
    await until(`CRD ${crd.metadata.name} Established`, deadline, async () => {
      const read = await within(
        'the API server',
        CALL_TIMEOUT_MS,
        apiextensions.readCustomResourceDefinition({ name: crd.metadata.name }),
      );
      return read.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')
        ? true
        : undefined;
    });
  }
}

/** The last lines of Kueue's log, to say why it is not ready. */
function logTail(files: KueueFiles, lines = 15): string {
  try {
    return readFileSync(kueueLog(files), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Waits until `check` holds; fails at once, with the end of its log, when the process started as `pid`
 * (unshare, then the script, then Kueue: one process) exits meanwhile.
 */
async function untilKueue(
  what: string,
  files: KueueFiles,
  pid: number,
  deadline: number,
  check: () => Promise<boolean>,
): Promise<void> {
  const outcome = await until(`${what} (log: ${kueueLog(files)})`, deadline, async () => {
    if (!isAlive(pid)) return 'exited';
    return (await check()) ? 'ready' : undefined;
  });
  if (outcome === 'exited')
    throw new Error(`Kueue exited; the end of ${kueueLog(files)}:\n${logTail(files)}`);
}

/** Whether Kueue answers its readiness endpoint and, through the API server, its webhook. */
async function ready(status: KueueStatus, clients: ApiClients): Promise<boolean> {
  if (!status.running || !status.ports || !(await kueueReadyz(status.ports.health))) return false;
  return kueueWebhookAnswers(clients).catch(() => false);
}

/**
 * Starts the cluster's Kueue (building it on first use) and returns once it is ready: its readiness
 * endpoint answers and its webhook, called by the API server, suspends a queued Job. A Kueue already
 * ready is left as it is; one that is not is started afresh, with new ports and certificates.
 */
export async function kueueUp(options: KueueOptions): Promise<KueueStatus> {
  const why = kueueUnavailable();
  if (why) throw new Error(why);
  const { progress, env } = options;
  const binary = await ensureKueueBuilt(progress, env);
  const files = filesOf(options.clusterDir);
  const kc = new KubeConfig();
  kc.loadFromFile(options.kubeconfig);
  const before = kueueStatus(options.clusterDir, env);
  const clients = apiClients(accessFromKubeconfig(options.kubeconfig));
  if (await ready(before, clients)) return before;
  if (before.pid !== undefined) {
    progress(`Kueue (pid ${before.pid}) is not ready; starting it afresh`);
    await stopKueue(files, binary);
  }

  const t0 = Date.now();
  const deadline = t0 + (options.timeoutMs ?? 180_000);
  progress(`starting Kueue ${KUEUE_VERSION} (its manager on this host, its webhooks on loopback)`);
  const moduleDir = await kueueModuleDir(env);
  const placement = readPlacement(moduleDir);
  for (const dir of [files.certDir, files.pidDir, files.logDir]) mkdirSync(dir, { recursive: true });
  const ca = await writeKueueCertificates(files.certDir);
  let ports: KueuePorts | undefined;
  const registration = { env, progress, workdir: options.workdir, configFile: files.configFile };
  await reservePorts(registration, 3, (chosen) => {
    ports = kueuePorts(chosen);
    writeFileSync(files.configFile, kueueConfiguration(ports, files.certDir, placement.namespace));
  });
  if (!ports) throw new Error('no ports were reserved for Kueue');
  const webhookUrl = `https://127.0.0.1:${ports.webhook}`;
  const manifests = readKueueManifests(moduleDir, {
    url: webhookUrl,
    caBundle: Buffer.from(ca).toString('base64'),
  });

  const { objects } = clients;
  for (const object of [manifests.namespace, ...manifests.crds, ...manifests.rbac])
    await apply(objects, object);
  await waitEstablished(clients, manifests.crds, deadline);
  const account = manifests.serviceAccount;
  const user = `system:serviceaccount:${account.namespace}:${account.name}`;
  writeKueueKubeconfig(kc, files.kubeconfig, await serviceAccountToken(clients, account), user);

  const pid = startKueue(files, binary, env);
  const { health } = ports;
  await untilKueue('Kueue ready', files, pid, deadline, () => kueueReadyz(health));
  for (const object of manifests.webhooks) await apply(objects, object);
  await untilKueue("Kueue's webhook answering the API server", files, pid, deadline, () =>
    kueueWebhookAnswers(clients),
  );
  progress(
    `Kueue ${KUEUE_VERSION} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (pid ${pid}, webhooks at ` +
      `${webhookUrl}, ${manifests.crds.length} CRDs, integrations: batch/job); log: ${kueueLog(files)}`,
  );
  return kueueStatus(options.clusterDir, env);
}

/** Stops the cluster's Kueue, if it has one; its state goes with the cluster's folder. */
export async function kueueDown(clusterDir: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!kueueExists(clusterDir)) return false;
  await stopKueue(filesOf(clusterDir), kueueBinary(env));
  return true;
}

/** The webhook configurations kueueUp installs, by kind and name (read from the module's config). */
async function webhookConfigurationNames(env: NodeJS.ProcessEnv) {
  const moduleDir = await kueueModuleDir(env);
  // The endpoint only fills the client configs; the names do not depend on it.
  const { webhooks } = readKueueManifests(moduleDir, { url: 'https://127.0.0.1:1', caBundle: '' });
  return webhooks.map((webhook) => ({ kind: webhook.kind, name: webhook.metadata.name }));
}

/**
 * Takes Kueue off a cluster that keeps running (a shared cluster a test brought Kueue up on): its
 * webhook configurations first, so that no Job or pod of anyone else is sent to a webhook that is
 * going (they fail closed), then its process, then its state folder, which frees its ports. Its CRDs
 * and RBAC stay, as harmless as any unused API; a later kueueUp applies them again.
 */
export async function kueueDetach(options: {
  clusterDir: string;
  kubeconfig: string;
  env?: NodeJS.ProcessEnv;
}): Promise<{ deleted: string[] }> {
  const env = options.env ?? process.env;
  const { objects } = apiClients(accessFromKubeconfig(options.kubeconfig));
  const deleted: string[] = [];
  for (const { kind, name } of await webhookConfigurationNames(env)) {
    const remove = objects.delete({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name },
    });
    try {
      await within(`the API server (deleting ${kind} ${name})`, CALL_TIMEOUT_MS, remove);
      deleted.push(`${kind}/${name}`);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  await kueueDown(options.clusterDir, env);
  rmSync(kueueStateDir(options.clusterDir), { recursive: true, force: true });
  return { deleted };
}
