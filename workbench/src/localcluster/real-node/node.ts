/**
 * One real node, `real-0`, beside the simulated ones: containerd (Debian's), a kubelet and kube-proxy
 * built from the pinned Kubernetes modules, and CoreDNS for the cluster domain, all on this machine.
 * Pods that select it (label and toleration `sim.flux-framework.org/real=true`) really run, from
 * images loaded into its containerd (no registry). Only one can exist per machine: it owns fixed
 * ports (10250, 10248, 10249, 10256), its bridge and its folders.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig, type V1Node } from '@kubernetes/client-node';
import { apiClients, type ApiClients } from '../../../../src/kube/api-clients.ts';
import { accessFromKubeconfig } from '../../../../src/kube/cluster-access.ts';

import { runHackScript, type Progress } from '../../tooling/hack-script.ts';
import { mountsUnder } from '../../tooling/mounts.ts';
import { readVersions } from '../../tooling/project.ts';
import { stderrProgress } from '../build.ts';
import { realNodeBinDir } from '../paths.ts';
import {
  BRIDGE_NAME,
  KUBELET_PORT,
  NODE_IP,
  POD_SUBNET,
  REAL_NODE_KEY,
  REAL_NODE_NAME,
  REAL_NODE_VALUE,
  clusterDnsObjects,
  cniConfig,
  containerdConfig,
  corefile,
  kubeProxyConfig,
  kubeletConfig,
  podResolvConf,
  realNodeLayout,
  realNodePaths,
  type RealNodeLayout,
  type RealNodePaths,
} from './config.ts';
import { until } from '../poll.ts';
import { listeningSockets, rssBytes, terminate, waitExited } from '../procfs.ts';
import { daemonPid, logFile, startDaemon, stopDaemon, type DaemonSpec } from './daemons.ts';
import {
  REQUIRED_SYSCTLS,
  captureHost,
  footprint,
  nodeLinks,
  nodeProcesses,
  podCgroupProcesses,
  podNetworkNamespaces,
  removeCgroups,
  restoreHost,
  writeSysctl,
  type Footprint,
  type SavedHost,
} from './host.ts';
import { realNodeImages, type RealNodeImageGroup } from './images.ts';
import { pauseImage } from './pause-image.ts';

/** Debian packages the node runs on (containerd, runc, CNI plugins) and that its teardown uses. */
export const REAL_NODE_PACKAGES = [
  'containerd',
  'runc',
  'containernetworking-plugins',
  'iptables',
  'nftables',
  'conntrack',
  'socat',
  'ethtool',
  'iproute2',
  'mount',
] as const;

export interface RealNodeOptions {
  /** The local cluster's state folder (`.cluster`), where the node keeps its config and logs. */
  stateDir: string;
  /** kwokctl's folder of the cluster the node joins: its admin kubeconfig and CA. */
  clusterDir: string;
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the node to become Ready (default 180 s). */
  timeoutMs?: number;
  /** The images to load (and build when the cache lacks them); default: every group. */
  images?: readonly RealNodeImageGroup[];
  /** Told before something is built: the node's binaries (`real-node`) or a group of images. */
  building?: (stage: RealNodeImageGroup | typeof REAL_NODE_BUILD) => void;
}

/** The stage that builds the node's own binaries (hack/build-real-node.sh). */
export const REAL_NODE_BUILD = 'real-node';
const REAL_NODE_BINARIES = ['kubelet', 'kube-proxy', 'coredns', 'pause'];

/** Whether the node's binaries are in the cache (hack/build-real-node.sh would build nothing). */
export function realNodeBuilt(env: NodeJS.ProcessEnv = process.env): boolean {
  const bin = realNodeBinDir(readVersions(), env);
  return REAL_NODE_BINARIES.every((name) => existsSync(path.join(bin, name)));
}

/** Why the real node cannot run on this machine, or undefined when it can. */
export function realNodeUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `the real node needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'the real node needs root (it runs containerd and a kubelet)';
  if (!existsSync('/sys/fs/cgroup')) return 'the real node needs cgroups mounted at /sys/fs/cgroup';
  return undefined;
}

interface Daemons {
  containerd: DaemonSpec;
  kubelet: DaemonSpec;
  kubeProxy: DaemonSpec;
  coredns: DaemonSpec;
  apiserverProxy: DaemonSpec;
}

/**
 * The node's daemons. `apiserverPort` is the API server's (loopback) port, which the node's address
 * forwards to, so that pods reach it through the `kubernetes` Service; status and teardown need no
 * port (a daemon is recognised by its binary).
 */
function daemons(bin: string, paths: RealNodePaths, apiserverPort = 0): Daemons {
  // containerd-shim and runc come from PATH; Debian's are in /usr/bin.
  return {
    containerd: {
      name: 'containerd',
      binary: '/usr/bin/containerd',
      args: ['--config', paths.containerdConfig],
    },
    kubelet: {
      name: 'kubelet',
      binary: path.join(bin, 'kubelet'),
      args: [
        `--config=${paths.kubeletConfig}`,
        `--kubeconfig=${paths.kubeconfig}`,
        `--root-dir=${paths.kubeletRoot}`,
        `--cert-dir=${paths.kubeletCerts}`,
        `--hostname-override=${REAL_NODE_NAME}`,
        `--node-ip=${NODE_IP}`,
        `--node-labels=${REAL_NODE_KEY}=${REAL_NODE_VALUE}`,
        `--register-with-taints=${REAL_NODE_KEY}=${REAL_NODE_VALUE}:NoSchedule`,
        '--v=1',
      ],
    },
    kubeProxy: {
      name: 'kube-proxy',
      binary: path.join(bin, 'kube-proxy'),
      args: [`--config=${paths.kubeProxyConfig}`, '--v=1'],
    },
    coredns: { name: 'coredns', binary: path.join(bin, 'coredns'), args: ['-conf', paths.corefile] },
    // The API server listens on loopback only (nothing of the cluster listens on the machine's
    // network); its advertised address is the node's, where this forwards the same port to it.
    apiserverProxy: {
      name: 'apiserver-proxy',
      binary: '/usr/bin/socat',
      args: [`TCP-LISTEN:${apiserverPort},bind=${NODE_IP},fork,reuseaddr`, `TCP:127.0.0.1:${apiserverPort}`],
    },
  };
}

function dirsOf(paths: RealNodePaths) {
  return { pidDir: paths.pidDir, logDir: paths.logDir };
}

export interface RealNodeStatus {
  name: string;
  /** Each daemon and whether it runs. */
  components: { name: string; alive: boolean }[];
  running: boolean;
  /** Something of the node is on the machine (a process, a folder, the bridge). */
  exists: boolean;
  rssBytes: number;
  logDir: string;
}

export function realNodeStatus(stateDir: string, env: NodeJS.ProcessEnv = process.env): RealNodeStatus {
  const layout = realNodeLayout(stateDir);
  const paths = realNodePaths(layout);
  const list = Object.values(daemons(realNodeBinDir(readVersions(), env), paths));
  const components = list.map((d) => ({
    name: d.name,
    alive: daemonPid(dirsOf(paths), d.name, d.binary) !== undefined,
  }));
  const processes = nodeProcesses(layout);
  const rss = processes.reduce((sum, p) => sum + rssBytes(p.pid), 0);
  return {
    name: REAL_NODE_NAME,
    components,
    running: components.every((c) => c.alive),
    exists:
      processes.length > 0 ||
      existsSync(layout.varDir) ||
      existsSync(layout.runDir) ||
      nodeLinks().length > 0,
    rssBytes: rss,
    logDir: paths.logDir,
  };
}

function clientsOf(kubeconfig: string): ApiClients {
  return apiClients(accessFromKubeconfig(kubeconfig));
}

function nodeReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

function ctr(paths: RealNodePaths, args: string[]): string {
  return execFileSync('ctr', ['--address', paths.containerdSocket, '--namespace', 'k8s.io', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Each image name the node's containerd holds, with its manifest's digest. */
function imageManifests(paths: RealNodePaths): Map<string, string> {
  // REF TYPE DIGEST SIZE PLATFORMS LABELS, where DIGEST is the manifest's.
  return new Map(
    ctr(paths, ['images', 'list'])
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/))
      .filter(([ref = '']) => ref !== '')
      .map(([ref = '', , digest = '']) => [ref, digest] as const),
  );
}

/** The image id (config digest) under each of `tags` that the node's containerd holds. */
function presentImageIds(paths: RealNodePaths, tags: readonly string[]): Map<string, string> {
  const manifests = imageManifests(paths);
  const ids = new Map<string, string>();
  for (const tag of tags) {
    const manifest = manifests.get(tag);
    if (manifest === undefined) continue;
    const parsed = JSON.parse(ctr(paths, ['content', 'get', manifest])) as { config?: { digest?: string } };
    if (parsed.config?.digest !== undefined) ids.set(tag, parsed.config.digest);
  }
  return ids;
}

/**
 * Forgets images a load moved their tags away from. The CRI plugin keeps each image under its id as
 * well (`sha256:<id>`); with the kubelet's image collection off, every rebuild of a `:dev` tag would
 * otherwise stay. Running containers keep their snapshots.
 */
function forgetUntagged(paths: RealNodePaths, ids: readonly string[]): void {
  const manifests = imageManifests(paths);
  for (const id of ids) {
    const manifest = manifests.get(id);
    if (manifest === undefined) continue;
    const named = [...manifests].some(
      ([ref, digest]) => ref !== id && !ref.startsWith('sha256:') && digest === manifest,
    );
    if (!named) ctr(paths, ['images', 'remove', id]);
  }
}

export interface LoadedImage {
  tags: string[];
  imageId: string;
  /** False when the node already had this image under every tag. */
  imported: boolean;
  /** The image ids the tags named before, when the import moved them. */
  replaced: string[];
}

/**
 * Imports docker-archives into the node's containerd, unless it holds the same image (by id) under each
 * tag already. A tag that names another image (a rebuilt `:dev`) moves to the archive's.
 */
async function loadImages(
  paths: RealNodePaths,
  archives: string[],
  progress: Progress,
): Promise<LoadedImage[]> {
  const loaded: LoadedImage[] = [];
  for (const archive of archives) {
    const t0 = Date.now();
    const manifest = execFileSync('tar', ['-xOf', archive, 'manifest.json'], { encoding: 'utf8' });
    const [image] = JSON.parse(manifest) as { Config: string; RepoTags?: string[] }[];
    if (image === undefined) throw new Error(`${archive} holds no image`);
    const tags = image.RepoTags ?? [];
    const imageId = `sha256:${path.basename(image.Config)}`;
    const present = presentImageIds(paths, tags);
    const replaced = [...new Set([...present.values()].filter((id) => id !== imageId))];
    if (tags.length > 0 && tags.every((tag) => present.get(tag) === imageId)) {
      loaded.push({ tags, imageId, imported: false, replaced });
      continue;
    }
    ctr(paths, ['images', 'import', '--snapshotter', 'overlayfs', '--no-unpack=false', archive]);
    const after = presentImageIds(paths, tags);
    const missed = tags.filter((tag) => after.get(tag) !== imageId);
    if (missed.length > 0) throw new Error(`importing ${archive} left ${missed.join(', ')} on another image`);
    forgetUntagged(paths, replaced);
    progress(
      `loaded ${tags.join(', ')} into the real node (${((Date.now() - t0) / 1000).toFixed(1)} s)` +
        (replaced.length > 0 ? `, replacing ${replaced.join(', ')}` : ''),
    );
    loaded.push({ tags, imageId, imported: true, replaced });
  }
  return loaded;
}

/** Throws a one-line error naming the command that starts the real node when its containerd is not running. */
export function requireRealNode(stateDir: string, env: NodeJS.ProcessEnv = process.env): void {
  const st = realNodeStatus(stateDir, env);
  if (!st.components.some((c) => c.name === 'containerd' && c.alive)) {
    throw new Error(
      `no real node is running on this machine: start one with \`npm run cluster:up -- --real-node\``,
    );
  }
}

/** Loads image archives into the running real node (see loadImages); the kubelet then runs them by tag. */
export async function loadIntoRealNode(
  stateDir: string,
  archives: string[],
  options: { progress?: Progress; env?: NodeJS.ProcessEnv } = {},
): Promise<LoadedImage[]> {
  requireRealNode(stateDir, options.env);
  const paths = realNodePaths(realNodeLayout(stateDir));
  return loadImages(paths, archives, options.progress ?? stderrProgress);
}

function readSaved(paths: RealNodePaths): SavedHost | undefined {
  try {
    return JSON.parse(readFileSync(paths.savedHost, 'utf8')) as SavedHost;
  } catch {
    return undefined;
  }
}

/** The host's settings from before the node first started, for tests that check the teardown. */
export function savedHostSettings(stateDir: string): SavedHost | undefined {
  return readSaved(realNodePaths(realNodeLayout(stateDir)));
}

export function realNodeFootprint(stateDir: string, saved: SavedHost): Footprint {
  const layout = realNodeLayout(stateDir);
  const found = footprint(layout, saved);
  found.processes.push(...podCgroupProcesses().map((pid) => `${pid} (in a pod cgroup)`));
  return found;
}

/**
 * Brings the real node up (building its binaries and images on first use) and waits until it is Ready.
 * Idempotent: a running node is kept; a partial one is removed first.
 */
/** The port of the API server the kubeconfig names. */
function apiserverPortOf(kubeconfig: string): number {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  const port = Number(new URL(config.getCurrentCluster()?.server ?? '').port);
  if (!(port > 0)) throw new Error(`${kubeconfig}: no API server port in its current cluster`);
  return port;
}

export async function realNodeUp(kubeconfig: string, options: RealNodeOptions): Promise<void> {
  const why = realNodeUnavailable();
  if (why) throw new Error(why);
  const progress = options.progress ?? stderrProgress;
  const env = options.env ?? process.env;
  const layout = realNodeLayout(options.stateDir);
  const paths = realNodePaths(layout);
  const timeoutMs = options.timeoutMs ?? 180_000;
  const { core, objects } = clientsOf(kubeconfig);

  const before = realNodeStatus(options.stateDir, env);
  if (before.running) {
    const node = await core.readNode({ name: REAL_NODE_NAME }).catch(() => undefined);
    if (node && nodeReady(node)) {
      // A node started before an image joined the set gets it now (one already there is skipped).
      await loadImages(
        paths,
        (await realNodeImages(progress, env, options.images, options.building)).map((image) => image.archive),
        progress,
      );
      return;
    }
  }

  await runHackScript('ensure-packages.sh', ['the real node', ...REAL_NODE_PACKAGES], { progress, env });
  if (!realNodeBuilt(env)) options.building?.(REAL_NODE_BUILD);
  const bin = await runHackScript('build-real-node.sh', [], { progress, env });
  if (bin !== realNodeBinDir(readVersions(), env))
    throw new Error(
      `hack/build-real-node.sh built into ${bin}, expected ${realNodeBinDir(readVersions(), env)}`,
    );

  const images = await realNodeImages(progress, env, options.images, options.building);
  const pause = await pauseImage(bin, env);
  // Another checkout's real node (a CI clone beside a worktree) holds the machine's kubelet port, bridge
  // and rules: removing "our partial node" first would take them from it, so this comes before that.
  const ourKubelet = before.components.some((c) => c.name === 'kubelet' && c.alive);
  if (!ourKubelet && listeningSockets().some((socket) => socket.port === KUBELET_PORT)) {
    throw new Error(
      `the kubelet's port ${KUBELET_PORT} is taken: another real node is running (another checkout's ` +
        '.cluster, or a kubelet of this machine), and only one can exist per machine; stop it first ' +
        '(`npm run cluster:down` in that checkout)',
    );
  }
  if (before.exists) {
    progress(`the real node ${REAL_NODE_NAME} is partly there; removing it first`);
    await realNodeDown({ stateDir: options.stateDir, progress, env, kubeconfig });
  }

  const t0 = Date.now();
  progress(`starting the real node ${REAL_NODE_NAME} (containerd, kubelet, kube-proxy, CoreDNS)`);
  // Saved before anything of the node exists; a save left by a node that died is the older truth.
  const host = existsSync(paths.savedHost) ? undefined : captureHost();
  for (const dir of [
    layout.varDir,
    layout.runDir,
    paths.pidDir,
    paths.logDir,
    paths.cniConfDir,
    paths.cniLeases,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  if (host) writeFileSync(paths.savedHost, JSON.stringify(host, null, 2));
  for (const [name, value] of Object.entries(REQUIRED_SYSCTLS)) writeSysctl(name, value);
  if (!nodeLinks().includes(BRIDGE_NAME)) {
    execFileSync('ip', ['link', 'add', BRIDGE_NAME, 'type', 'bridge']);
    execFileSync('ip', ['addr', 'add', `${NODE_IP}/${POD_SUBNET.split('/')[1] ?? '24'}`, 'dev', BRIDGE_NAME]);
    execFileSync('ip', ['link', 'set', BRIDGE_NAME, 'up']);
  }

  const pki = (file: string) => path.join(options.clusterDir, 'pki', file);
  copyFileSync(path.join(options.clusterDir, 'kubeconfig.yaml'), paths.kubeconfig);
  writeFileSync(paths.containerdConfig, containerdConfig(paths, pause.reference));
  writeFileSync(path.join(paths.cniConfDir, '10-flux-operator.conflist'), cniConfig(paths));
  writeFileSync(paths.kubeletConfig, kubeletConfig(paths, pki('ca.crt')));
  writeFileSync(paths.kubeProxyConfig, kubeProxyConfig(paths));
  writeFileSync(paths.corefile, corefile(paths.kubeconfig));
  writeFileSync(paths.resolvConf, podResolvConf());

  const d = daemons(bin, paths, apiserverPortOf(kubeconfig));
  const dirs = dirsOf(paths);
  startDaemon(d.apiserverProxy, dirs);
  startDaemon(d.containerd, dirs);
  await until('containerd', Date.now() + 30_000, () => (ctr(paths, ['version']) ? true : undefined));
  await loadImages(paths, [pause.archive, ...images.map((image) => image.archive)], progress);

  startDaemon(d.kubelet, dirs);
  startDaemon(d.kubeProxy, dirs);
  startDaemon(d.coredns, dirs);
  for (const object of clusterDnsObjects()) {
    await until('the kube-dns Service', Date.now() + 30_000, async () => {
      await objects.apply(object as never, 'flux-operator-localcluster');
      return true;
    });
  }
  await until(
    `node ${REAL_NODE_NAME} Ready (logs: ${logFile(dirs, 'kubelet')})`,
    Date.now() + timeoutMs,
    async () => {
      for (const daemon of Object.values(d)) {
        if (daemonPid(dirs, daemon.name, daemon.binary) === undefined) {
          throw new Error(`${daemon.name} exited; see ${logFile(dirs, daemon.name)}`);
        }
      }
      const node = await core.readNode({ name: REAL_NODE_NAME });
      return nodeReady(node) ? node : undefined;
    },
  );
  progress(`real node ${REAL_NODE_NAME} Ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Deletes the pods on the node through the API, so the kubelet tears each down (network, mounts). */
async function drain(kubeconfig: string, progress: Progress) {
  const { core } = clientsOf(kubeconfig);
  const pods = await core
    .listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${REAL_NODE_NAME}` })
    .then((list) => list.items)
    .catch(() => undefined);
  if (pods === undefined) return;
  for (const pod of pods) {
    await core
      .deleteNamespacedPod({
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? '',
        gracePeriodSeconds: 1,
      })
      .catch(() => undefined);
  }
  if (pods.length > 0) progress(`deleting ${pods.length} pods of the real node`);
  await until('the pods of the real node to go', Date.now() + 60_000, async () => {
    const left = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${REAL_NODE_NAME}` });
    return left.items.length === 0 ? true : undefined;
  }).catch(() => progress('some pods of the real node did not go in 60 s; removing them by force'));
  await core.deleteNode({ name: REAL_NODE_NAME }).catch(() => undefined);
}

/**
 * Removes the real node and everything it made on the machine: processes, containers, mounts, network
 * namespaces, the bridge and veths, netfilter rules and tables, cgroups, folders; puts the host's
 * sysctls back. Returns what could not be undone (empty when all is gone).
 */
export async function realNodeDown(
  options: Pick<RealNodeOptions, 'stateDir' | 'progress' | 'env'> & { kubeconfig?: string },
): Promise<string[]> {
  const progress = options.progress ?? stderrProgress;
  const layout = realNodeLayout(options.stateDir);
  const paths = realNodePaths(layout);
  const dirs = dirsOf(paths);
  if (options.kubeconfig && existsSync(options.kubeconfig)) await drain(options.kubeconfig, progress);

  const d = daemons(realNodeBinDir(readVersions(), options.env ?? process.env), paths);
  for (const daemon of [d.kubeProxy, d.coredns, d.kubelet, d.apiserverProxy])
    await stopDaemon(dirs, daemon.name, daemon.binary);
  if (existsSync(d.kubeProxy.binary)) {
    try {
      execFileSync(d.kubeProxy.binary, ['--cleanup'], { stdio: 'pipe' });
    } catch {
      // what it leaves, the netfilter restore below removes
    }
  }
  // Containers whose pods were not deleted in time: kill them where they are, then their runtime.
  const orphans = podCgroupProcesses();
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await waitExited(orphans, 10_000);
  await stopDaemon(dirs, d.containerd.name, d.containerd.binary);
  await terminate(
    nodeProcesses(layout).map((p) => p.pid),
    5_000,
  );

  const problems: string[] = [];
  for (const netns of podNetworkNamespaces()) {
    unmount(netns, problems);
    rmSync(netns, { force: true });
  }
  for (const mount of mountsUnder([layout.varDir, layout.runDir])) unmount(mount, problems);
  for (const link of nodeLinks().filter((l) => l !== BRIDGE_NAME)) deleteLink(link, problems);
  if (nodeLinks().includes(BRIDGE_NAME)) deleteLink(BRIDGE_NAME, problems);
  problems.push(...removeCgroups());
  const saved = readSaved(paths);
  if (saved) problems.push(...restoreHost(saved));
  const made = [layout.varDir, layout.runDir, ...(saved?.absentPlaces ?? [])];
  const mounted = mountsUnder(made);
  if (mounted.length === 0) {
    for (const dir of [...made, layout.configDir]) rmSync(dir, { recursive: true, force: true });
  } else {
    problems.push(`mounts remain (${mounted.join(', ')}): folders kept`);
  }
  for (const problem of problems) progress(`real node teardown: ${problem}`);
  return problems;
}

function unmount(target: string, problems: string[]) {
  try {
    execFileSync('umount', [target], { stdio: 'pipe' });
  } catch {
    try {
      execFileSync('umount', ['--lazy', target], { stdio: 'pipe' });
    } catch (err) {
      problems.push(`umount ${target}: ${String(err)}`);
    }
  }
}

function deleteLink(name: string, problems: string[]) {
  try {
    execFileSync('ip', ['link', 'delete', name], { stdio: 'pipe' });
  } catch (err) {
    if (nodeLinks().includes(name)) problems.push(`ip link delete ${name}: ${String(err)}`);
  }
}

export type { RealNodeLayout };
