// The loopback ports of a local cluster's components, chosen by us rather than by kwokctl: kwokctl
// picks ports that are free at the moment it looks, so two clusters created at once could pick the
// same ones, and a cluster whose component is down (its port free for a while) could lose that port
// to a new cluster and never start the component again.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Progress } from '../tooling/hack-script.ts';
import { cacheRoot } from '../tooling/project.ts';
import { portsOfConfiguration } from './kueue/config.ts';
import { withLock } from './lock.ts';
import { listeningSockets } from './procfs.ts';

/** kwokctl's options for the ports it would otherwise choose itself (binary runtime). */
export const COMPONENT_PORT_OPTIONS = [
  'etcdPeerPort',
  'etcdPort',
  'kubeApiserverPort',
  'kwokControllerPort',
  'kubeControllerManagerPort',
  'kubeSchedulerPort',
] as const;

export type ComponentPorts = Record<(typeof COMPONENT_PORT_OPTIONS)[number], number>;

/** kwokctl's own range: below the kernel's ephemeral ports (32768 up), so no outgoing connection takes one. */
const HIGHEST_PORT = 32767;
const LOWEST_PORT = 10001;

/** The `count` highest ports of kwokctl's range that are not unavailable. */
export function freePorts(unavailable: ReadonlySet<number>, count: number): number[] {
  const chosen: number[] = [];
  for (let port = HIGHEST_PORT; port >= LOWEST_PORT && chosen.length < count; port--) {
    if (!unavailable.has(port)) chosen.push(port);
  }
  if (chosen.length < count) {
    throw new Error(`no free loopback ports left in ${LOWEST_PORT}-${HIGHEST_PORT} for a local cluster`);
  }
  return chosen;
}

/** kwokctl's port options, given the ports in their order. */
export function componentPorts(chosen: readonly number[]): ComponentPorts {
  return Object.fromEntries(COMPONENT_PORT_OPTIONS.map((option, i) => [option, chosen[i]])) as ComponentPorts;
}

/** The highest ports of kwokctl's range that are not unavailable, one per option. */
export function choosePorts(unavailable: ReadonlySet<number>): ComponentPorts {
  return componentPorts(freePorts(unavailable, COMPONENT_PORT_OPTIONS.length));
}

/**
 * The ports a YAML text of ours names: every `...Port` option of a KwokctlConfiguration, and the
 * webhook, health and metrics ports of a Kueue Configuration (kueue/config.ts).
 */
export function portsInConfig(text: string): number[] {
  const ports: number[] = [];
  for (const doc of parseAllDocuments(text)) {
    const value = doc.toJS() as { kind?: string; options?: Record<string, unknown> } | null;
    const kueue = portsOfConfiguration(value);
    if (kueue) ports.push(kueue.webhook, kueue.health, kueue.metrics);
    if (value?.kind !== 'KwokctlConfiguration') continue;
    for (const [key, port] of Object.entries(value.options ?? {})) {
      if (/Port$/.test(key) && typeof port === 'number' && port > 0) ports.push(port);
    }
  }
  return ports;
}

function portsInFile(file: string): number[] {
  try {
    return portsInConfig(readFileSync(file, 'utf8'));
  } catch {
    return []; // deleted meanwhile
  }
}

/**
 * Records, in a folder shared by every project checkout of this machine, that a cluster's ports are
 * those of `configFile` for as long as that file exists: clusters of other state folders (another
 * checkout, a CI clone) are then seen too.
 */
export function registerConfig(registry: string, configFile: string): void {
  mkdirSync(registry, { recursive: true });
  const entry = createHash('sha256').update(configFile).digest('hex').slice(0, 32);
  writeFileSync(path.join(registry, entry), configFile);
}

/** The ports of every registered config that still exists; entries whose config is gone are dropped. */
export function portsRegistered(registry: string): Set<number> {
  const held = new Set<number>();
  if (!existsSync(registry)) return held;
  for (const entry of readdirSync(registry)) {
    const file = path.join(registry, entry);
    let configFile: string;
    try {
      configFile = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (!existsSync(configFile)) {
      rmSync(file, { force: true });
      continue;
    }
    for (const port of portsInFile(configFile)) held.add(port);
  }
  return held;
}

/**
 * The ports that the clusters of a kwokctl work folder hold, running or not: those in the configs we
 * wrote for kwokctl (`<workdir>/*.config.yaml`, present from before kwokctl creates a cluster until it
 * is deleted) and those kwokctl recorded (`<workdir>/clusters/<name>/kwok.yaml`).
 */
export function portsHeldIn(workdir: string): Set<number> {
  const files: string[] = [];
  if (existsSync(workdir)) {
    for (const entry of readdirSync(workdir)) {
      if (entry.endsWith('.config.yaml')) files.push(path.join(workdir, entry));
    }
  }
  const clusters = path.join(workdir, 'clusters');
  if (existsSync(clusters)) {
    for (const entry of readdirSync(clusters)) files.push(path.join(clusters, entry, 'kwok.yaml'));
  }
  return new Set(files.flatMap(portsInFile));
}

/**
 * Writes, with `write(ports)`, a config naming `count` loopback ports that no local cluster of this
 * machine holds (of the kwokctl work folder `workdir`, or of any state folder that registered its
 * configs) and nothing listens on, then registers it; one process of the machine at a time, so that two
 * clusters (or a cluster and its Kueue) never get the same ports.
 */
export async function reservePorts(
  options: { env: NodeJS.ProcessEnv; progress: Progress; workdir: string; configFile: string },
  count: number,
  write: (ports: number[]) => void,
): Promise<void> {
  const machineWide = path.join(cacheRoot(options.env), 'local-clusters');
  const registry = path.join(machineWide, 'ports');
  await withLock(
    path.join(machineWide, 'ports.lock'),
    options.progress,
    'choosing ports for its local cluster',
    async () => {
      const unavailable = new Set([...portsHeldIn(options.workdir), ...portsRegistered(registry)]);
      for (const socket of listeningSockets()) unavailable.add(socket.port);
      write(freePorts(unavailable, count));
      registerConfig(registry, options.configFile);
    },
  );
}
