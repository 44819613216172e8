// Starts, inspects and stops a local control plane: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and a kwok controller simulating the nodes, all run by `kwokctl --runtime binary` from
// binaries built into the versioned cache, bound to 127.0.0.1.
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { apiClients } from '../../../src/kube/api-clients.ts';
import { accessFromKubeconfig } from '../../../src/kube/cluster-access.ts';
import type { V1Node } from '@kubernetes/client-node';
import { ensureBuilt, missingBinaries, stderrProgress } from './build.ts';
import { firstRunPlan, type BuildStage } from './first-run.ts';
import {
  componentSpecs,
  healthy,
  readKwokctlConfig,
  startComponent,
  type ComponentSpec,
} from './components.ts';
import {
  binDir,
  DEFAULT_CLUSTER,
  kubeconfigPath,
  kwokClusterDir,
  kwokClusterName,
  kwokWorkdir,
  stateDir as defaultStateDir,
  validateName,
} from './paths.ts';
import { isAlive, listeningSockets, listeningSocketsOf, rssBytes, terminate, waitExited } from './procfs.ts';
import type { ListeningSocket } from './procfs.ts';
import { until as untilDone } from './poll.ts';
import { clientReviver } from './revive.ts';
import { withLock } from './lock.ts';
import { COMPONENT_PORT_OPTIONS, componentPorts, reservePorts, type ComponentPorts } from './ports.ts';
import { STAGES_YAML } from './stages.ts';
import type { Progress } from '../tooling/hack-script.ts';
import { readVersions } from '../tooling/project.ts';
import { KUBERNETES_SERVICE_IP, NODE_IP } from './real-node/config.ts';
import { REAL_NODE_IMAGE_GROUPS, uncachedImageGroups, type RealNodeImageGroup } from './real-node/images.ts';
import {
  REAL_NODE_BUILD,
  realNodeBuilt,
  realNodeDown,
  realNodeStatus,
  realNodeUnavailable,
  realNodeUp,
  type RealNodeStatus,
} from './real-node/node.ts';
import {
  KUEUE_BUILD_SECONDS,
  KUEUE_VERSION,
  ensureKueueBuilt,
  kueueBuilt,
  kueueDown,
  kueueExists,
  kueueStatus,
  kueueUnavailable,
  kueueUp,
  type KueueStatus,
} from './kueue/index.ts';

export interface ClusterOptions {
  /** Cluster name; `default` unless given. */
  name?: string;
  /** Progress lines for long steps; stderr unless given. */
  progress?: Progress;
  /** State folder (kubeconfigs, kwokctl work folders); `.cluster` in the project root unless given. */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
}

export interface NodeShape {
  count: number;
  cpu: string;
  memory: string;
  pods: string;
}

const KWOK_CONTROLLER = 'kwok-controller';
/** The annotation that has kwok simulate a node (kwok-controller's annotation selector, in kwokctlConfigYaml). */
const SIMULATED_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

export const DEFAULT_NODES: NodeShape = { count: 4, cpu: '8', memory: '32Gi', pods: '110' };

export interface UpOptions extends ClusterOptions {
  nodes?: Partial<NodeShape>;
  /** How long to wait for the cluster to become usable (default 180 s). */
  timeoutMs?: number;
  /**
   * Also bring up the real node `real-0` (containerd + kubelet on this machine, see real-node/), where
   * pods that select it really run. Only the default cluster can have it (one per machine).
   */
  realNode?: boolean;
  /** The real node's images to load (and build when the cache lacks them); default: every group. */
  realNodeImages?: readonly RealNodeImageGroup[];
  /**
   * Also run Kueue (built from its Go module on first use) on this host, its CRDs, RBAC and webhooks
   * installed in the cluster (kueue/). Without it, nothing of Kueue is built or started.
   */
  kueue?: boolean;
}

export interface ComponentProcess {
  pid: number;
  command: string;
}

export interface ClusterStatus {
  name: string;
  kubeconfig: string;
  /** kwokctl's work folder for this cluster exists. */
  exists: boolean;
  /** Every control-plane process is alive. */
  running: boolean;
  /** Live processes whose command line refers to this cluster's work folder. */
  processes: ComponentProcess[];
  /** The components kwokctl configured, and whether a live process runs each. */
  components: { name: string; alive: boolean }[];
  /** The ports kwokctl chose for this cluster. */
  ports: Record<string, number>;
  /** The TCP sockets the cluster's processes listen on. */
  listening: ListeningSocket[];
  /** Summed resident memory of the processes. */
  rssBytes: number;
  apiserver?: string;
  /** The real node, when this is the default cluster and something of it is on the machine. */
  realNode?: RealNodeStatus;
  /** Kueue, when the cluster was started with it. */
  kueue?: KueueStatus;
}

export interface UpResult {
  kubeconfig: string;
  /** False when the cluster was already running (or only some of its components were started again). */
  started: boolean;
  /**
   * Components started again, keeping the cluster's objects: those that were not running (and the
   * API server's clients, when it was one of them).
   */
  repaired?: string[];
  status: ClusterStatus;
}

function resolve(options: ClusterOptions) {
  const name = options.name ?? DEFAULT_CLUSTER;
  validateName(name);
  const dir = options.stateDir ?? defaultStateDir(options.env);
  return {
    name,
    dir,
    progress: options.progress ?? stderrProgress,
    env: options.env ?? process.env,
    kubeconfig: kubeconfigPath(name, dir),
    clusterDir: kwokClusterDir(name, dir),
    workdir: kwokWorkdir(dir),
    kwokName: kwokClusterName(name),
  };
}

/** Live processes whose command line mentions `folder` (every component gets a path inside it). */
function processesUnder(folder: string): ComponentProcess[] {
  const needle = folder.endsWith(path.sep) ? folder : folder + path.sep;
  const found: ComponentProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const args = cmdline.split('\0').filter((a) => a !== '');
    if (args.length === 0 || !args.some((a) => a.includes(needle))) continue;
    // kwokctl itself (while it creates or deletes) is no component.
    if (path.basename(args[0] ?? '') === 'kwokctl') continue;
    if (!isAlive(pid)) continue;
    found.push({ pid, command: args.join(' ') });
  }
  return found;
}

export function status(options: ClusterOptions = {}): ClusterStatus {
  const r = resolve(options);
  const config = readKwokctlConfig(r.clusterDir);
  const processes = processesUnder(r.clusterDir);
  const ports: Record<string, number> = {};
  for (const [key, value] of Object.entries(config?.options ?? {})) {
    if (/Port$/.test(key) && typeof value === 'number' && value > 0) ports[key] = value;
  }
  const components = (config?.components ?? []).map((c) => {
    const binary = c.binary ?? '';
    const alive = processes.some((p) => binary !== '' && p.command.startsWith(binary));
    return { name: c.name ?? '?', alive };
  });
  const pids = processes.map((p) => p.pid);
  const realNode = r.name === DEFAULT_CLUSTER ? realNodeStatus(r.dir, r.env) : undefined;
  return {
    name: r.name,
    kubeconfig: r.kubeconfig,
    exists: config !== undefined,
    running: components.length > 0 && components.every((c) => c.alive),
    processes,
    components,
    ports,
    listening: listeningSocketsOf(pids),
    rssBytes: pids.reduce((sum, pid) => sum + rssBytes(pid), 0),
    ...(ports.kubeApiserverPort ? { apiserver: `https://127.0.0.1:${ports.kubeApiserverPort}` } : {}),
    ...(realNode?.exists ? { realNode } : {}),
    ...(kueueExists(r.clusterDir) ? { kueue: kueueStatus(r.clusterDir, r.env) } : {}),
  };
}

/** kwokctl logs JSON lines when not on a terminal; keeps its "Cluster is ..." messages, readably. */
function kwokctlMessage(line: string): string | undefined {
  let msg = line.trim();
  let elapsed = '';
  if (msg.startsWith('{')) {
    try {
      const rec = JSON.parse(msg) as { msg?: string; elapsed?: { human?: string } };
      msg = rec.msg ?? '';
      elapsed = rec.elapsed?.human ? ` (${rec.elapsed.human})` : '';
    } catch {
      // not JSON after all
    }
  }
  return /Cluster is|Stopping|Deleting|rror/.test(msg) ? msg + elapsed : undefined;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  progress: Progress,
  timeoutMs: number,
): Promise<{ code: number; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const onData = (chunk: string) => {
      output += chunk;
      for (const line of chunk.split('\n')) {
        const msg = kwokctlMessage(line);
        if (msg) progress(`kwokctl: ${msg}`);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? 1, output });
    });
  });
}

function kwokctlConfigYaml(
  bin: string,
  versions: ReturnType<typeof readVersions>,
  clusterDir: string,
  ports: ComponentPorts,
): string {
  const b = (name: string) => JSON.stringify(path.join(bin, name));
  const pki = (name: string) => JSON.stringify(path.join(clusterDir, 'pki', name));
  return `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  runtime: binary
  bindAddress: 127.0.0.1
  kubeVersion: ${JSON.stringify(versions.kubernetes)}
  etcdVersion: ${JSON.stringify(versions.etcd.replace(/^v/, ''))}
  kwokVersion: ${JSON.stringify(versions.kwok)}
  kubeApiserverBinary: ${b('kube-apiserver')}
  kubeControllerManagerBinary: ${b('kube-controller-manager')}
  kubeSchedulerBinary: ${b('kube-scheduler')}
  kubectlBinary: ${b('kubectl')}
  etcdBinary: ${b('etcd')}
  kwokControllerBinary: ${b('kwok')}
  etcdQuotaBackendSize: 2Gi
  # Pods of the real node reach the API server as the kubernetes Service (its first IP) through the
  # node's address, where the real node forwards to the loopback port.
  kubeApiserverCertSANs: [${JSON.stringify(KUBERNETES_SERVICE_IP)}, ${JSON.stringify(NODE_IP)}]
  enableCRDs: [Exec, ClusterExec, Logs, ClusterLogs, Attach, ClusterAttach]
${Object.entries(ports)
  .map(([option, port]) => `  ${option}: ${port}`)
  .join('\n')}
componentsPatches:
# Alone in their cluster, the controller manager and the scheduler need no leader election; with it they
# exit when the API server is away longer than their lease, and nothing would start them again.
- name: kube-controller-manager
  extraArgs:
  - key: controllers
    value: "*"
  - key: leader-elect
    value: "false"
  # The default client rate (20/s) makes the Job controller, not the code under test, the bottleneck
  # when hundreds of pods start at once (benchmarks).
  - key: kube-api-qps
    value: "200"
  - key: kube-api-burst
    value: "400"
# A real node (--real-node) can join any time: the API server reaches its kubelet (exec, logs) with the
# cluster's admin identity, and kwok leaves alone every node that is not one of its simulated ones.
- name: kube-scheduler
  extraArgs:
  - key: leader-elect
    value: "false"
- name: kube-apiserver
  extraArgs:
  - key: kubelet-client-certificate
    value: ${pki('admin.crt')}
  - key: kubelet-client-key
    value: ${pki('admin.key')}
  - key: kubelet-preferred-address-types
    value: InternalIP,Hostname
  - key: advertise-address
    value: ${JSON.stringify(NODE_IP)}
- name: kwok-controller
  extraArgs:
  - key: manage-all-nodes
    value: "false"
  - key: manage-nodes-with-annotation-selector
    value: ${SIMULATED_NODE_ANNOTATION}=fake
---
${STAGES_YAML}
`;
}

function simulatedNode(i: number, shape: NodeShape): V1Node {
  const name = `kwok-node-${i}`;
  const resources = { cpu: shape.cpu, memory: shape.memory, pods: shape.pods, 'ephemeral-storage': '100Gi' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': `sim-${shape.cpu}cpu-${shape.memory}`,
        type: 'kwok',
      },
      annotations: { [SIMULATED_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { podCIDR: `10.244.${i}.0/24`, podCIDRs: [`10.244.${i}.0/24`] },
    status: {
      capacity: resources,
      allocatable: resources,
      // The API server reaches "kubelets" (kwok's server, for exec/logs/port-forward) on the InternalIP.
      addresses: [
        { type: 'InternalIP', address: '127.0.0.1' },
        { type: 'Hostname', address: name },
      ],
    },
  };
}

function httpStatus(err: unknown): number | undefined {
  const e = err as { code?: unknown; statusCode?: unknown };
  return typeof e.code === 'number' ? e.code : typeof e.statusCode === 'number' ? e.statusCode : undefined;
}

/** Starts again what exits of the cluster's API-server clients while it comes up (revive.ts). */
function reviverOf(r: ReturnType<typeof resolve>): () => void {
  return clientReviver({
    clusterDir: r.clusterDir,
    name: r.name,
    progress: r.progress,
    processes: () => processesUnder(r.clusterDir),
  });
}

async function waitUsable(
  kubeconfig: string,
  ports: Record<string, number>,
  shape: NodeShape,
  deadline: number,
  progress: Progress,
  revive: () => void = () => undefined,
) {
  const { core } = apiClients(accessFromKubeconfig(kubeconfig));
  const until = <T>(what: string, by: number, fn: () => Promise<T | undefined>) =>
    untilDone(what, by, () => {
      revive();
      return fn();
    });
  await until('the API server', deadline, async () => (await core.listNamespace()).items);
  for (let i = 0; i < shape.count; i++) {
    try {
      await core.createNode({ body: simulatedNode(i, shape) });
    } catch (err) {
      if (httpStatus(err) !== 409) throw err;
    }
  }
  await until(`${shape.count} Ready nodes`, deadline, async () => {
    const nodes = (await core.listNode({ labelSelector: 'type=kwok' })).items;
    const ready = nodes.filter((n) =>
      n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    return ready.length >= shape.count ? ready : undefined;
  });
  // Pods need the namespace's default ServiceAccount (admission); the scheduler and the controller
  // manager answer their health checks once they work.
  await until('the default ServiceAccount', deadline, async () =>
    core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' }),
  );
  for (const [component, port] of [
    ['kube-scheduler', ports.kubeSchedulerPort],
    ['kube-controller-manager', ports.kubeControllerManagerPort],
  ] as const) {
    if (port === undefined) continue;
    await until(`${component} healthy`, deadline, async () => ((await healthy(port)) ? true : undefined));
  }
  progress(`${shape.count} simulated nodes Ready (${shape.cpu} cpu, ${shape.memory} each)`);
}

/**
 * Brings the named cluster up (building the binaries on first use) and returns its kubeconfig path.
 * Idempotent: a running cluster is reused; a stale one (processes gone) is deleted and created afresh.
 */
export async function up(options: UpOptions = {}): Promise<UpResult> {
  const r = resolve(options);
  if (options.realNode && r.name !== DEFAULT_CLUSTER) {
    throw new Error(`only the default cluster can have the real node (one per machine), not ${r.name}`);
  }
  const noKueue = options.kueue ? kueueUnavailable() : undefined;
  if (noKueue) throw new Error(noKueue);
  const plan = firstRunPlan(buildsLacking(options, r.env), r.progress);
  if (plan.announcement !== undefined) r.progress(plan.announcement);
  plan.starting(CONTROL_PLANE_BUILD);
  const bin = await ensureBuilt({ progress: r.progress, env: r.env });
  if (options.kueue) {
    plan.starting(KUEUE_BUILD);
    await ensureKueueBuilt(r.progress, r.env);
  }
  return withLock(lockFile(r), r.progress, CLUSTER_LOCK_HOLDER, async () => {
    const result = await upLocked(options, r, bin);
    if (!options.realNode && !options.kueue) return result;
    if (options.realNode) {
      await realNodeUp(result.kubeconfig, {
        stateDir: r.dir,
        clusterDir: r.clusterDir,
        progress: r.progress,
        env: r.env,
        ...(options.realNodeImages === undefined ? {} : { images: options.realNodeImages }),
        building: (stage) => plan.starting(stage),
      });
    }
    if (options.kueue) {
      const { clusterDir, workdir, progress, env } = r;
      await kueueUp({ clusterDir, workdir, kubeconfig: result.kubeconfig, progress, env });
    }
    return { ...result, status: status(options) };
  });
}

const CONTROL_PLANE_BUILD = 'control-plane';
const KUEUE_BUILD = 'kueue';

/**
 * What `up` will build because the cache lacks it. The figures are a fresh 2-core machine's (the
 * issue that measured a newcomer's first run: the control plane about 20 minutes, the real node 7).
 */
function buildsLacking(options: UpOptions, env: NodeJS.ProcessEnv): BuildStage[] {
  const stages: BuildStage[] = [];
  if (missingBinaries(binDir(readVersions(), env)).length > 0) {
    stages.push({
      key: CONTROL_PLANE_BUILD,
      what: 'the control plane (Kubernetes, etcd and kwok from Go modules)',
      seconds: 1200,
    });
  }
  if (options.kueue && !kueueBuilt(env)) {
    const what = `Kueue ${KUEUE_VERSION} from its Go module`;
    stages.push({ key: KUEUE_BUILD, what, seconds: KUEUE_BUILD_SECONDS });
  }
  if (!options.realNode || realNodeUnavailable() !== undefined) return stages;
  if (!realNodeBuilt(env)) {
    stages.push({
      key: REAL_NODE_BUILD,
      what: "the real node's kubelet, kube-proxy and CoreDNS",
      seconds: 420,
    });
  }
  for (const stage of uncachedImageGroups(options.realNodeImages ?? REAL_NODE_IMAGE_GROUPS, env)) {
    stages.push({ key: stage.group, what: stage.what, seconds: stage.seconds });
  }
  return stages;
}

/** Two processes do not start or stop the same cluster at once. */
function lockFile(r: ReturnType<typeof resolve>): string {
  return path.join(r.workdir, `${r.kwokName}.lock`);
}

const CLUSTER_LOCK_HOLDER = 'starting or stopping this cluster';

/** Writes the config kwokctl creates the cluster from, with ports of its own (ports.ts). */
async function writeKwokctlConfig(r: ReturnType<typeof resolve>, bin: string, configFile: string) {
  const options = { env: r.env, progress: r.progress, workdir: r.workdir, configFile };
  await reservePorts(options, COMPONENT_PORT_OPTIONS.length, (chosen) =>
    writeFileSync(configFile, kwokctlConfigYaml(bin, readVersions(), r.clusterDir, componentPorts(chosen))),
  );
}

async function upLocked(options: UpOptions, r: ReturnType<typeof resolve>, bin: string): Promise<UpResult> {
  const shape: NodeShape = { ...DEFAULT_NODES, ...options.nodes };
  const deadline = () => Date.now() + (options.timeoutMs ?? 180_000);
  const env = { ...r.env, KWOK_WORKDIR: r.workdir };

  const before = status(options);
  const kwokKubeconfig = path.join(r.clusterDir, 'kubeconfig.yaml');
  if (before.running && existsSync(kwokKubeconfig)) {
    if (!existsSync(r.kubeconfig)) {
      mkdirSync(path.dirname(r.kubeconfig), { recursive: true });
      copyFileSync(kwokKubeconfig, r.kubeconfig);
    }
    await waitUsable(r.kubeconfig, before.ports, shape, deadline(), () => {}, reviverOf(r));
    return { kubeconfig: r.kubeconfig, started: false, status: status(options) };
  }
  if (before.exists && existsSync(kwokKubeconfig)) {
    mkdirSync(path.dirname(r.kubeconfig), { recursive: true });
    copyFileSync(kwokKubeconfig, r.kubeconfig);
    const repaired = await repair(r, before, shape, deadline());
    if (repaired) return { kubeconfig: r.kubeconfig, started: false, repaired, status: status(options) };
  }
  if (before.exists || before.processes.length > 0) {
    r.progress(`cluster ${r.name} is stale (some processes are gone); recreating it`);
    await downLocked(options, r);
  }

  const t0 = Date.now();
  r.progress(
    `starting cluster ${r.name} (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)`,
  );
  mkdirSync(r.workdir, { recursive: true });
  const configFile = path.join(r.workdir, `${r.kwokName}.config.yaml`);
  await writeKwokctlConfig(r, bin, configFile);
  const kwokctl = path.join(bin, 'kwokctl');
  const created = await run(
    kwokctl,
    ['--name', r.kwokName, '--config', configFile, 'create', 'cluster', '--kubeconfig=', '--timeout=5m'],
    env,
    r.progress,
    330_000,
  );
  if (created.code !== 0) {
    const tail = created.output.split('\n').slice(-40).join('\n');
    await downLocked(options, r).catch(() => {});
    throw new Error(`kwokctl create cluster failed (exit ${created.code}):\n${tail}`);
  }
  mkdirSync(path.dirname(r.kubeconfig), { recursive: true });
  copyFileSync(kwokKubeconfig, r.kubeconfig);
  const st = status(options);
  await waitUsable(r.kubeconfig, st.ports, shape, deadline(), r.progress, reviverOf(r));
  r.progress(
    `cluster ${r.name} up in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${st.apiserver ?? '?'}; ` +
      `kubeconfig: ${r.kubeconfig}`,
  );
  return { kubeconfig: r.kubeconfig, started: true, status: st };
}

/** Deletes the node leases of the simulated nodes, once the API server answers. */
async function releaseSimulatedNodeLeases(kubeconfig: string, deadline: number): Promise<void> {
  const { core, coordination } = apiClients(accessFromKubeconfig(kubeconfig));
  const nodes = await untilDone('the API server', deadline, async () => (await core.listNode()).items);
  for (const node of nodes) {
    const name = node.metadata?.name;
    if (!name || node.metadata?.annotations?.[SIMULATED_NODE_ANNOTATION] !== 'fake') continue;
    try {
      await coordination.deleteNamespacedLease({ name, namespace: 'kube-node-lease' });
    } catch (err) {
      if (httpStatus(err) !== 404) throw err;
    }
  }
}

/**
 * Starts again, as kwokctl configured them, the components of an existing cluster that are not running
 * (etcd keeps the objects on disk, so nothing is lost). Returns their names, or undefined when that
 * does not make the cluster usable.
 */
async function repair(
  r: ReturnType<typeof resolve>,
  before: ClusterStatus,
  shape: NodeShape,
  deadline: number,
): Promise<string[] | undefined> {
  const config = readKwokctlConfig(r.clusterDir);
  if (!config) return undefined;
  const dead = new Set(before.components.filter((c) => !c.alive).map((c) => c.name));
  const components = componentSpecs(config, r.clusterDir);
  // While a component was dead, another process (another cluster created meanwhile) may have taken
  // its port: it could not start again there.
  const listening = new Set(listeningSockets().map((socket) => socket.port));
  const taken = components.flatMap((c) =>
    dead.has(c.name)
      ? c.ports.filter((port) => listening.has(port)).map((port) => `${c.name}'s port ${port}`)
      : [],
  );
  if (taken.length > 0) {
    r.progress(`cluster ${r.name}: another process took ${taken.join(', ')}; recreating the cluster`);
    return undefined;
  }
  // The API server's clients outlived it, but their watches now wait out client-go's backoff (up to
  // 30 s, then the Job controller and the scheduler lag behind for a minute): started afresh, they
  // list and watch at once.
  const serverRestarted = dead.has('kube-apiserver') || dead.has('etcd');
  const refresh = serverRestarted
    ? components.filter((c) => !dead.has(c.name) && c.name !== 'etcd' && c.name !== 'kube-apiserver')
    : [];
  await terminate(
    refresh.flatMap((c) => before.processes.filter((p) => p.command.startsWith(c.binary)).map((p) => p.pid)),
  );
  const t0 = Date.now();
  const started: string[] = [];
  const start = async (component: ComponentSpec) => {
    const restart = refresh.includes(component);
    if (!dead.has(component.name) && !restart) return;
    r.progress(
      restart
        ? `cluster ${r.name}: restarting ${component.name}, a client of the restarted API server`
        : `cluster ${r.name}: ${component.name} is not running; starting it again`,
    );
    // kwok simulates only the nodes whose lease it holds; those its previous instance held would be
    // left alone until they expired (kwokctl sets 200 s).
    if (component.name === KWOK_CONTROLLER) await releaseSimulatedNodeLeases(r.kubeconfig, deadline);
    startComponent(r.clusterDir, component);
    started.push(component.name);
  };
  for (const component of components) if (component.name !== KWOK_CONTROLLER) await start(component);
  try {
    for (const component of components) if (component.name === KWOK_CONTROLLER) await start(component);
    await waitUsable(r.kubeconfig, before.ports, shape, deadline, r.progress, reviverOf(r));
  } catch (err) {
    r.progress(`cluster ${r.name} is still not usable (${String(err)}); recreating it`);
    return undefined;
  }
  r.progress(`cluster ${r.name} repaired in ${((Date.now() - t0) / 1000).toFixed(1)} s, its objects kept`);
  return started;
}

/**
 * Stops every process of the named cluster and removes its state and kubeconfig. Returns whether
 * anything was there to stop.
 */
export async function down(options: ClusterOptions = {}): Promise<{ stopped: boolean }> {
  const r = resolve(options);
  return withLock(lockFile(r), r.progress, CLUSTER_LOCK_HOLDER, () => downLocked(options, r));
}

async function downLocked(
  options: ClusterOptions,
  r: ReturnType<typeof resolve>,
): Promise<{ stopped: boolean }> {
  const before = status(options);
  const pids = before.processes.map((p) => p.pid);
  if (before.realNode?.exists) {
    r.progress(`removing the real node ${before.realNode.name}`);
    const problems = await realNodeDown({
      stateDir: r.dir,
      kubeconfig: r.kubeconfig,
      progress: r.progress,
      env: r.env,
    });
    if (problems.length > 0) throw new Error(`the real node left things behind:\n${problems.join('\n')}`);
  }
  // Before the API server goes: nothing of Kueue outlives its cluster.
  if (await kueueDown(r.clusterDir, r.env)) r.progress(`stopped Kueue of cluster ${r.name}`);
  if (before.exists) {
    r.progress(`stopping cluster ${r.name}`);
    const kwokctl = path.join(binDir(readVersions(), r.env), 'kwokctl');
    if (existsSync(kwokctl)) {
      const env = { ...r.env, KWOK_WORKDIR: r.workdir };
      const res = await run(kwokctl, ['--name', r.kwokName, 'delete', 'cluster'], env, r.progress, 120_000);
      if (res.code !== 0)
        r.progress(`kwokctl delete cluster failed (exit ${res.code}); killing the processes`);
    }
  }
  // Whatever kwokctl left behind: TERM, then KILL.
  await terminate(await waitExited([...pids, ...processesUnder(r.clusterDir).map((p) => p.pid)], 5_000));
  rmSync(r.clusterDir, { recursive: true, force: true });
  rmSync(path.join(r.workdir, `${r.kwokName}.config.yaml`), { force: true });
  rmSync(r.kubeconfig, { force: true });
  if (r.name !== DEFAULT_CLUSTER) rmSync(path.dirname(r.kubeconfig), { recursive: true, force: true });
  return { stopped: before.exists || pids.length > 0 };
}
