/**
 * The quickstart (`npm start`, whose command line is main.ts beside this file): the whole path on one
 * machine. Uses the configured cluster, or brings up the local control plane (with its real node where
 * this machine can run one) when there is none; installs the CRD, runs the operator in this process,
 * applies a MiniCluster and shows its progress until it finishes (Succeeded or Failed, with the lead
 * broker's output) or, for an instance that stays up or on simulated nodes, until it is Ready.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Pod } from '@kubernetes/client-node';
import {
  GROUP,
  LABEL_JOB_COMPLETION_INDEX,
  LABEL_MINICLUSTER,
  PLURAL,
  VERSION_V1ALPHA1,
  type MiniClusterStatus,
} from '../../../src/api/index.ts';
import { isNotFound } from '../../../src/kube/api-errors.ts';
import { serverSideApply } from '../../../src/kube/apply.ts';
import { apiClientsFor, loadKubeConfig } from '../../../src/kube/clients.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { readMiniClusterStatus } from '../../../src/controllers/minicluster/minicluster-client.ts';
import { Operator } from '../../../src/controllers/operator.ts';
import { FIELD_MANAGER, OPERATOR_NAMESPACE, WEBHOOK_CERT_SECRET } from '../../../src/deploy/index.ts';
import { DEFAULT_WEBHOOK_ADDR } from '../../../src/cli/webhook-flags.ts';
import { parseBindAddress } from '../../../src/observability/health-server.ts';
import {
  fluxImageRecipe,
  fluxViewReference,
  plainImageRecipe,
  readFluxCoreVersion,
} from '../images/index.ts';
import { DEFAULT_CLUSTER, kubeconfigPath, status as clusterStatus, up } from '../localcluster/index.ts';
import { REAL_NODE_NAME } from '../localcluster/real-node/config.ts';
import { REAL_NODE_IMAGE_GROUPS, type RealNodeImageGroup } from '../localcluster/real-node/images.ts';
import { realNodeUnavailable } from '../localcluster/real-node/node.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { fluxContainer } from '../../../src/render/index.ts';
import { InputError } from '../../../src/cli/input-error.ts';
import { installCommand } from '../../../src/cli/install-command.ts';
import {
  finished,
  leadOutputLines,
  outcomeLine,
  progressLine,
  runsToCompletion,
} from './quickstart-output.ts';
import { describeSwaps, imagesUsed, onRealNode, type RealNodeImages } from './real-node-placement.ts';
import { loadWrittenMiniClusters, type WrittenMiniCluster } from '../../../src/cli/render-command.ts';
import { hubModelOf } from '../../../src/api/index.ts';
import { namespaceOf } from '../../../src/api/index.ts';

export interface QuickstartOptions {
  readonly file: string;
  readonly kubeconfig?: string;
  readonly timeoutMs: number;
  readonly say?: (line: string) => void;
}

/** The kubeconfig the user has configured, if any (flag, $KUBECONFIG, ~/.kube/config). */
export function configuredKubeconfig(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (flag !== undefined) return flag;
  const fromEnv = env.KUBECONFIG?.split(':').find((path) => path !== '' && existsSync(path));
  if (fromEnv) return fromEnv;
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home) ? home : undefined;
}

/** Where the MiniCluster goes: the user's cluster, or the local one on its real node or simulated nodes. */
interface Cluster {
  kubeconfig: string;
  local: boolean;
  /** Pods really run (the user's cluster, or the local real node). */
  runsPods: boolean;
}

async function clusterToUse(
  flag: string | undefined,
  say: (line: string) => void,
  images: readonly RealNodeImageGroup[],
): Promise<Cluster> {
  const configured = configuredKubeconfig(flag);
  // The local control plane's own kubeconfig, configured by hand, is still the local cluster.
  if (configured !== undefined && resolve(configured) !== kubeconfigPath(DEFAULT_CLUSTER)) {
    say(`Using the cluster of ${configured}`);
    return { kubeconfig: configured, local: false, runsPods: true };
  }
  const progress = (line: string) => say(`  ${line}`);
  const whyNot = realNodeUnavailable();
  say(
    clusterStatus().running
      ? `${configured === undefined ? 'No cluster configured: using' : 'Using'} the local control plane, which is running.`
      : `${configured === undefined ? 'No cluster configured: starting' : 'Starting'} the local control plane (what the cache lacks is built from source first: the next line says what and how long).`,
  );
  if (whyNot) {
    say(`No real node: ${whyNot}; the MiniCluster goes on simulated nodes, where nothing runs.`);
    return { kubeconfig: (await up({ progress })).kubeconfig, local: true, runsPods: false };
  }
  return {
    kubeconfig: (await up({ realNode: true, realNodeImages: images, progress })).kubeconfig,
    local: true,
    runsPods: true,
  };
}

/** Deletes a MiniCluster of this name left from an earlier run, and waits until it and its pods are gone. */
async function removeEarlierRun(
  clients: ApiClients,
  namespace: string,
  name: string,
  say: (line: string) => void,
): Promise<void> {
  const earlier = await readMiniClusterStatus(clients, namespace, name);
  if (earlier === undefined) return;
  say(`Deleting MiniCluster ${namespace}/${name} (${earlier.summary ?? 'Pending'}) left from an earlier run`);
  const target = { group: GROUP, version: VERSION_V1ALPHA1, namespace, plural: PLURAL, name };
  await clients.custom
    .deleteNamespacedCustomObject({ ...target, propagationPolicy: 'Foreground' })
    .catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const left = await readMiniClusterStatus(clients, namespace, name);
    const pods = await clients.core.listNamespacedPod({
      namespace,
      labelSelector: `${LABEL_MINICLUSTER}=${name}`,
    });
    if (left === undefined && pods.items.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`MiniCluster ${namespace}/${name} of an earlier run is still there after 120 s`);
    }
    await sleep(250);
  }
}

/** The lead broker's pod (index 0; the newest if the Job made several) and its log. */
async function leadBroker(
  clients: ApiClients,
  miniCluster: WrittenMiniCluster,
  namespace: string,
): Promise<{ pod?: string; log?: string }> {
  const pods = await clients.core.listNamespacedPod({
    namespace,
    labelSelector: `${LABEL_MINICLUSTER}=${miniCluster.metadata.name},${LABEL_JOB_COMPLETION_INDEX}=0`,
  });
  const created = (pod: V1Pod) => new Date(pod.metadata?.creationTimestamp ?? 0).getTime();
  const pod = [...pods.items].sort((a, b) => created(b) - created(a))[0]?.metadata?.name;
  if (pod === undefined) return {};
  const log = await clients.core.readNamespacedPodLog({
    name: pod,
    namespace,
    container: fluxContainer(hubModelOf(miniCluster)).name,
  });
  return { pod, log };
}

/**
 * The groups of the real node's images a placed MiniCluster runs: the Flux image, the view, the plain
 * image; every group when it runs another image built here (`localhost/...`), which may be any of them.
 */
export function imageGroupsFor(
  miniCluster: WrittenMiniCluster,
  references: RealNodeImages,
): RealNodeImageGroup[] {
  const groupOf = new Map<string, RealNodeImageGroup>([
    [references.flux, 'flux'],
    [references.view, 'view'],
    [references.plain, 'plain'],
  ]);
  const used = imagesUsed(miniCluster);
  if (used.some((image) => image.startsWith('localhost/') && !groupOf.has(image)))
    return [...REAL_NODE_IMAGE_GROUPS];
  return [...new Set(used.flatMap((image) => groupOf.get(image) ?? []))];
}

/** The images `npm run cluster:up -- --real-node` loads into the real node. */
function realNodeImages(): RealNodeImages {
  const version = readFluxCoreVersion();
  return {
    flux: fluxImageRecipe(version).variants.plain.reference,
    view: fluxViewReference(version),
    plain: plainImageRecipe('bookworm').reference,
  };
}

export async function quickstart(options: QuickstartOptions): Promise<number> {
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const [loaded] = await loadWrittenMiniClusters([options.file]);
  if (!loaded) throw new InputError([`${options.file}: no MiniCluster found`]);
  const name = loaded.metadata.name;
  const namespace = namespaceOf(loaded);

  // Placed before the cluster is up, so that a first run builds only the images this one runs.
  const references = realNodeImages();
  const placement = onRealNode(loaded, references);
  const cluster = await clusterToUse(
    options.kubeconfig,
    say,
    imageGroupsFor(placement.miniCluster, references),
  );
  const kubectl = `kubectl --kubeconfig ${cluster.kubeconfig}`;
  let miniCluster = loaded;
  const local = cluster.local && cluster.runsPods ? references : undefined;
  if (local) {
    miniCluster = placement.miniCluster;
    say(
      placement.swaps.length === 0
        ? `Running ${name} on the real node ${REAL_NODE_NAME}.`
        : `Running ${name} on the real node ${REAL_NODE_NAME} with images built here (there is no registry to pull from): ${describeSwaps(placement.swaps)}.`,
    );
  }
  const awaitOutcome = cluster.runsPods && runsToCompletion(miniCluster);

  say('Installing the MiniCluster CRD and RBAC:');
  await installCommand({ kubeconfig: cluster.kubeconfig, log: (line) => say(`  ${line}`) });

  const config = loadKubeConfig(cluster.kubeconfig);
  const clients = apiClientsFor(config);
  const manager = new Operator({
    clients: apiClientsFor(config),
    log: createLogger({ level: 'warn', format: 'pretty' }),
    namespaces: [namespace],
    concurrency: 4,
    // Out of cluster, as `flux-operator run`: the webhook on a free loopback port, the CRD pointed at it.
    conversionWebhook: {
      address: parseBindAddress(DEFAULT_WEBHOOK_ADDR) ?? { host: '127.0.0.1', port: 0 },
      secret: { namespace: OPERATOR_NAMESPACE, name: WEBHOOK_CERT_SECRET },
    },
    // The local real node has the view built there (no registry); elsewhere the API's default.
    ...(local ? { fluxViewImage: local.view } : {}),
  });
  await manager.start();
  try {
    await convertsThroughTheWebhook(clients, namespace);
    await removeEarlierRun(clients, namespace, name, say);
    say(`Applying MiniCluster ${namespace}/${name} (size ${miniCluster.spec.size}) from ${options.file}`);
    const { metadata, spec, apiVersion, kind } = miniCluster;
    await serverSideApply(
      clients.objects,
      { apiVersion, kind, metadata: { name: metadata.name, namespace }, spec },
      FIELD_MANAGER,
    );
    const status = await watch(clients, miniCluster, namespace, awaitOutcome, options.timeoutMs, say);
    if (!status) {
      const wanted = awaitOutcome ? 'finished (Succeeded or Failed)' : 'Ready';
      say(
        `MiniCluster ${namespace}/${name} was not ${wanted} after ${Math.round(options.timeoutMs / 1000)} s.`,
      );
      return 1;
    }
    if (status.summary === 'Ready') {
      say(`MiniCluster ${namespace}/${name} is Ready.`);
      if (!cluster.runsPods)
        say('Nothing ran: simulated nodes run no containers, their pods only look Running.');
    } else {
      const lead = await leadBroker(clients, miniCluster, namespace).catch((error: unknown) => ({
        error: error instanceof Error ? error.message : String(error),
      }));
      if ('error' in lead) say(`The lead broker's log could not be read: ${lead.error}`);
      else for (const line of leadOutputLines(lead.pod, lead.log, kubectl, namespace)) say(line);
      say(outcomeLine(namespace, name, status));
    }
    say('Look around with:');
    say(`  ${kubectl} get mc,jobs,pods,svc -n ${namespace}`);
    if (cluster.local) say('Stop the local control plane with: npm run cluster:down');
    return status.summary === 'Failed' ? 1 : 0;
  } finally {
    await manager.stop();
  }
}

/**
 * Waits until MiniClusters are served through the webhook the operator just pointed the CRD at (the
 * API server rebuilds its handler of the CRD on that change: a few hundred milliseconds).
 */
async function convertsThroughTheWebhook(clients: ApiClients, namespace: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await clients.custom.listNamespacedCustomObject({
        group: GROUP,
        version: VERSION_V1ALPHA1,
        plural: PLURAL,
        namespace,
      });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await sleep(250);
  }
}

/** Prints a line per change of state; resolves with the last status once finished, or undefined at the deadline. */
async function watch(
  clients: ApiClients,
  miniCluster: WrittenMiniCluster,
  namespace: string,
  awaitOutcome: boolean,
  timeoutMs: number,
  say: (line: string) => void,
): Promise<MiniClusterStatus | undefined> {
  const name = miniCluster.metadata.name;
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const status = await readMiniClusterStatus(clients, namespace, name);
    const line = status ? progressLine(status, miniCluster.spec.size) : 'waiting for the MiniCluster';
    if (line !== last) say(`  ${line}`);
    last = line;
    if (status && finished(status, awaitOutcome)) return status;
    if (Date.now() > deadline) return undefined;
    await sleep(250);
  }
}
