/**
 * The real node's footprint on the machine, and how to take it away again: the host settings it
 * changes (sysctls, netfilter tables), the processes, mounts, network links and cgroups it makes.
 * Settings are saved before the node first starts and restored when it is removed; everything else
 * is found by where it lives (our folders, our bridge, the kubelet's `kubepods` cgroups).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mountsUnder } from '../../tooling/mounts.ts';
import { BRIDGE_NAME, type RealNodeLayout } from './config.ts';

/**
 * Host sysctls the real node changes: forwarding and bridge netfilter for the pods' network, and
 * those the kubelet sets for itself (it expects a machine of its own).
 */
export const CHANGED_SYSCTLS = [
  'net.ipv4.ip_forward',
  'net.bridge.bridge-nf-call-iptables',
  'net.bridge.bridge-nf-call-ip6tables',
  'net.ipv4.conf.all.route_localnet',
  'vm.overcommit_memory',
  'vm.panic_on_oom',
  'kernel.panic',
  'kernel.panic_on_oops',
  'kernel.keys.root_maxkeys',
  'kernel.keys.root_maxbytes',
] as const;

/** What the node needs, set before it starts. */
export const REQUIRED_SYSCTLS: Readonly<Record<string, string>> = {
  'net.ipv4.ip_forward': '1',
  // Replies between pods on one bridge must pass netfilter to undo a Service's address translation.
  'net.bridge.bridge-nf-call-iptables': '1',
};

function sysctlPath(name: string): string {
  return path.join('/proc/sys', ...name.split('.'));
}

export function readSysctl(name: string): string | undefined {
  try {
    return readFileSync(sysctlPath(name), 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function writeSysctl(name: string, value: string): void {
  writeFileSync(sysctlPath(name), `${value}\n`);
}

/** netfilter tables as `family name`, e.g. `ip nat`. */
export function nftTables(): string[] {
  const out = execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => /^table (\S+) (\S+)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]} ${m[2]}`)
    .sort();
}

function tableSave(tool: 'iptables-save' | 'ip6tables-save'): string {
  return execFileSync(tool, [], { encoding: 'utf8' });
}

/**
 * Machine folders the node's programs make at fixed places whatever they are told: the kubelet's
 * device-plugin socket, libcni's result cache, the containerd shims' sockets, CRI's network
 * namespaces, libmount's table; and the parents of our own folders.
 */
export const FIXED_PLACES = [
  '/var/lib/kubelet',
  '/var/lib/cni',
  '/run/containerd',
  '/run/netns',
  '/run/mount',
  '/var/lib/flux-operator',
  '/run/flux-operator',
] as const;

/** The host's settings before the real node first started. */
export interface SavedHost {
  sysctls: Record<string, string>;
  nftTables: string[];
  iptables: string;
  ip6tables: string;
  /** FIXED_PLACES that did not exist: the node made them, its removal removes them. */
  absentPlaces: string[];
}

export function captureHost(): SavedHost {
  const sysctls: Record<string, string> = {};
  for (const name of CHANGED_SYSCTLS) {
    const value = readSysctl(name);
    if (value !== undefined) sysctls[name] = value;
  }
  return {
    sysctls,
    nftTables: nftTables(),
    iptables: tableSave('iptables-save'),
    ip6tables: tableSave('ip6tables-save'),
    absentPlaces: FIXED_PLACES.filter((place) => !existsSync(place)),
  };
}

/** Comment and counter lines aside, what an iptables-save text declares, per table. */
export function parseTableSave(text: string): Map<string, { chains: Set<string>; rules: string[] }> {
  const tables = new Map<string, { chains: Set<string>; rules: string[] }>();
  let current: { chains: Set<string>; rules: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('*')) {
      current = { chains: new Set(), rules: [] };
      tables.set(line.slice(1), current);
    } else if (line.startsWith(':') && current) {
      current.chains.add(line.slice(1).split(' ')[0] ?? '');
    } else if (line.startsWith('-A ') && current) {
      current.rules.push(line.slice(3));
    }
  }
  return tables;
}

const BUILTIN_CHAINS = new Set(['INPUT', 'OUTPUT', 'FORWARD', 'PREROUTING', 'POSTROUTING']);

/**
 * The commands (arguments of iptables/ip6tables) that take a table back from `now` to `before`:
 * delete the rules added since, then flush and remove the chains added since. Rules are compared as
 * iptables-save prints them, which is canonical.
 */
export function iptablesUndo(before: string, now: string): string[][] {
  const was = parseTableSave(before);
  const commands: string[][] = [];
  const removedChains: string[][] = [];
  for (const [table, state] of parseTableSave(now)) {
    const old = was.get(table);
    const oldRules = new Set(old?.rules ?? []);
    for (const rule of state.rules) {
      if (!oldRules.has(rule)) commands.push(['-t', table, '-D', ...splitRule(rule)]);
    }
    for (const chain of state.chains) {
      if (!BUILTIN_CHAINS.has(chain) && !old?.chains.has(chain))
        removedChains.push(['-t', table, '-X', chain]);
    }
  }
  // A chain can be removed only once no rule jumps to it and it is empty.
  const flushes = removedChains.map(([, table, , chain]) => ['-t', table ?? '', '-F', chain ?? '']);
  return [...commands, ...flushes, ...removedChains];
}

/** Splits an iptables-save rule into words, keeping "quoted strings" (comments) whole. */
export function splitRule(rule: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of rule.matchAll(pattern))
    words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? ''));
  return words;
}

/** Puts sysctls and netfilter back as they were; returns what could not be undone. */
export function restoreHost(saved: SavedHost): string[] {
  const problems: string[] = [];
  const now = new Set(nftTables());
  for (const table of now) {
    if (saved.nftTables.includes(table)) continue;
    const [family, name] = table.split(' ');
    try {
      execFileSync('nft', ['delete', 'table', family ?? '', name ?? ''], { stdio: 'pipe' });
    } catch (err) {
      problems.push(`nft delete table ${table}: ${String(err)}`);
    }
  }
  for (const [tool, save, before] of [
    ['iptables', 'iptables-save', saved.iptables],
    ['ip6tables', 'ip6tables-save', saved.ip6tables],
  ] as const) {
    for (const args of iptablesUndo(before, tableSave(save))) {
      try {
        execFileSync(tool, ['-w', ...args], { stdio: 'pipe' });
      } catch (err) {
        problems.push(`${tool} ${args.join(' ')}: ${String(err)}`);
      }
    }
  }
  for (const [name, value] of Object.entries(saved.sysctls)) {
    if (readSysctl(name) === value) continue;
    try {
      writeSysctl(name, value);
    } catch (err) {
      problems.push(`sysctl ${name}=${value}: ${String(err)}`);
    }
  }
  return problems;
}

/** The network namespaces containerd made for pods. */
export function podNetworkNamespaces(): string[] {
  const dir = '/run/netns';
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith('cni-'))
    .map((name) => path.join(dir, name));
}

/** Our bridge and the pods' veth ends plugged into it. */
export function nodeLinks(): string[] {
  let out: string;
  try {
    out = execFileSync('ip', ['-o', 'link', 'show'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return []; // no iproute2: the node, which needs it, was never up here
  }
  const links: string[] = [];
  for (const line of out.split('\n')) {
    const m = /^\d+: ([^:@]+)(?:@[^:]+)?: .*?(?: master (\S+))?/.exec(line);
    if (!m?.[1]) continue;
    if (m[1] === BRIDGE_NAME || line.includes(` master ${BRIDGE_NAME} `)) links.push(m[1]);
  }
  return links.sort();
}

/** The kubelet's pod cgroups (cgroup v1 hierarchies and the v2 `unified` one), deepest first. */
export function podCgroups(): string[] {
  const base = '/sys/fs/cgroup';
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      return;
    }
    for (const entry of entries) walk(path.join(dir, entry));
    found.push(dir);
  };
  if (!existsSync(base)) return [];
  for (const hierarchy of readdirSync(base)) {
    const root = path.join(base, hierarchy, 'kubepods');
    if (existsSync(root)) walk(root);
  }
  return found;
}

/** Processes still inside the pod cgroups (containers whose runtime is gone). */
export function podCgroupProcesses(): number[] {
  const pids = new Set<number>();
  for (const dir of podCgroups()) {
    try {
      for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) {
        if (pid.trim() !== '') pids.add(Number(pid));
      }
    } catch {
      // gone meanwhile
    }
  }
  return [...pids];
}

export function removeCgroups(): string[] {
  const problems: string[] = [];
  for (const dir of podCgroups()) {
    try {
      rmdirSync(dir);
    } catch (err) {
      problems.push(`rmdir ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
  return problems;
}

/** Processes of the real node: any whose command line or executable refers to our folders. */
export function nodeProcesses(layout: RealNodeLayout): { pid: number; command: string }[] {
  const needles = [layout.varDir, layout.runDir, layout.configDir];
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline = '';
    let exe = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      exe = readlinkSync(`/proc/${entry}/exe`);
    } catch {
      if (cmdline === '') continue;
    }
    if (needles.some((needle) => cmdline.includes(needle) || exe.startsWith(needle))) {
      found.push({ pid: Number(entry), command: cmdline });
    }
  }
  return found;
}

/** Everything of the real node that can be seen on the machine; empty when it is fully removed. */
export interface Footprint {
  processes: string[];
  mounts: string[];
  networkNamespaces: string[];
  links: string[];
  cgroups: string[];
  folders: string[];
  nftTables: string[];
  iptablesRules: string[];
  sysctls: string[];
}

/**
 * What of the node is on the machine, measured against `saved` (the host before the node): tables,
 * rules and sysctls that differ from then count as left behind.
 */
export function footprint(layout: RealNodeLayout, saved: SavedHost): Footprint {
  const rulesOf = (text: string) =>
    [...parseTableSave(text)].flatMap(([table, s]) => s.rules.map((rule) => `${table}: ${rule}`));
  const added = (before: string, now: string) => {
    const old = new Set(rulesOf(before));
    return rulesOf(now).filter((rule) => !old.has(rule));
  };
  return {
    processes: nodeProcesses(layout).map((p) => `${p.pid} ${p.command}`),
    mounts: mountsUnder([layout.varDir, layout.runDir]),
    networkNamespaces: podNetworkNamespaces(),
    links: nodeLinks(),
    cgroups: podCgroups(),
    folders: [layout.varDir, layout.runDir, ...saved.absentPlaces].filter((dir) => existsSync(dir)),
    nftTables: nftTables().filter((table) => !saved.nftTables.includes(table)),
    iptablesRules: [
      ...added(saved.iptables, tableSave('iptables-save')).map((r) => `ipv4 ${r}`),
      ...added(saved.ip6tables, tableSave('ip6tables-save')).map((r) => `ipv6 ${r}`),
    ],
    sysctls: Object.entries(saved.sysctls)
      .filter(([name, value]) => readSysctl(name) !== value)
      .map(([name, value]) => `${name}=${readSysctl(name) ?? '?'} (was ${value})`),
  };
}
