/**
 * broker.toml: the configuration every broker of a MiniCluster reads. Its `[bootstrap]` table is
 * the whole overlay network: each broker finds its rank by matching its hostname against the
 * expanded `hosts` entries, so every broker of an instance must see the same ordered list.
 *
 * Flux rejects unknown `[bootstrap]` keys, so the document is built from a closed set of keys and
 * rendered with a TOML library (smol-toml), never by string concatenation.
 */
import { stringify } from 'smol-toml';
import { decodeHostlist, encodeHostlist, indexedHostNames } from './hostlist.ts';

export const DEFAULT_BROKER_PORT = 8050;
/** Pods have one interface; `%p` is replaced by Flux with the port. */
export const DEFAULT_BIND_URI = 'tcp://eth0:%p';
export const DEFAULT_CLUSTER_DOMAIN = 'cluster.local';

/** One `[[bootstrap.hosts]]` entry. `host` may be a hostlist; `bind`/`connect` override the defaults. */
export interface BrokerHostEntry {
  host: string;
  bind?: string;
  connect?: string;
}

export type FluxionQueuePolicy = 'fcfs' | 'easy' | 'hybrid' | 'conservative';

export interface BrokerConfigInput {
  /** Final path of the CURVE certificate inside the pod (after the entrypoint copied it). */
  curveCertPath: string;
  /** Rank-ordered host entries; see `miniClusterHostEntries` and `burstClusterHostEntries`. */
  hosts: readonly BrokerHostEntry[];
  /** Headless Service giving pods their DNS names: `<host>.<service>.<namespace>.svc.<domain>`. */
  serviceName: string;
  namespace: string;
  clusterDomain?: string;
  defaultPort?: number;
  defaultBind?: string;
  resource: {
    /** Path of R inside the pod. */
    path: string;
    /** Set where the hardware differs from R (Flux otherwise drains such nodes). */
    noverify?: boolean;
  };
  /** flux-security IMP path, for multi-user instances. */
  exec?: { imp: string };
  access?: { allowGuestUser?: boolean; allowRootOwner?: boolean };
  /** job-archive; `period` and `busytimeout` are RFC 23 durations such as "1m". */
  archive?: { dbpath: string; period?: string; busytimeout?: string };
  queuePolicy?: FluxionQueuePolicy;
  /**
   * `sched-simple`: flux-core's own scheduler even where Fluxion is installed (0.88's module loader
   * takes `[modules] alternatives`, for the `sched` and `feasibility` services Fluxion also provides).
   */
  scheduler?: 'sched-simple';
}

/** The broker.toml document, keys spelled as Flux reads them. */
export interface BrokerConfigDocument {
  bootstrap: {
    curve_cert: string;
    default_port: number;
    default_bind: string;
    default_connect: string;
    hosts: BrokerHostEntry[];
  };
  resource: { path: string; noverify?: boolean };
  exec?: { imp: string };
  access?: { 'allow-guest-user'?: boolean; 'allow-root-owner'?: boolean };
  archive?: { dbpath: string; period?: string; busytimeout?: string };
  'sched-fluxion-qmanager'?: { 'queue-policy': FluxionQueuePolicy };
  modules?: { alternatives: { sched: string; feasibility: string } };
}

/** `tcp://%h.<service>.<namespace>.svc.<domain>:%p`: Flux substitutes host and port per entry. */
export function kubernetesConnectUri(
  serviceName: string,
  namespace: string,
  clusterDomain = DEFAULT_CLUSTER_DOMAIN,
): string {
  return `tcp://%h.${serviceName}.${namespace}.svc.${clusterDomain}:%p`;
}

/** Host names of all ranks, in rank order. Throws when a host appears twice (it could never get its rank). */
export function expandBrokerHosts(entries: readonly BrokerHostEntry[]): string[] {
  const hosts: string[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    for (const host of decodeHostlist(entry.host)) {
      if (seen.has(host)) {
        throw new Error(
          `host ${JSON.stringify(host)} is listed twice in the broker hosts: a broker takes the first matching rank`,
        );
      }
      seen.add(host);
      hosts.push(host);
    }
  }
  return hosts;
}

/** One compact hostlist naming every rank, e.g. for `flux R encode --hosts=...`. */
export function brokerHostlist(entries: readonly BrokerHostEntry[]): string {
  return encodeHostlist(expandBrokerHosts(entries));
}

function requireText(name: string, value: string): void {
  if (value.trim() === '') throw new Error(`${name} must not be empty`);
}

export function brokerConfigDocument(input: BrokerConfigInput): BrokerConfigDocument {
  const port = input.defaultPort ?? DEFAULT_BROKER_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`defaultPort ${port} is not a TCP port`);
  requireText('curveCertPath', input.curveCertPath);
  requireText('serviceName', input.serviceName);
  requireText('namespace', input.namespace);
  requireText('resource.path', input.resource.path);
  if (input.hosts.length === 0) throw new Error('broker hosts must list at least the lead broker');
  expandBrokerHosts(input.hosts); // validates every hostlist and rejects duplicates

  const document: BrokerConfigDocument = {
    bootstrap: {
      curve_cert: input.curveCertPath,
      default_port: port,
      default_bind: input.defaultBind ?? DEFAULT_BIND_URI,
      default_connect: kubernetesConnectUri(input.serviceName, input.namespace, input.clusterDomain),
      // Copies with a fixed key order, so the text does not depend on how callers built entries.
      hosts: input.hosts.map((entry) => {
        const copy: BrokerHostEntry = { host: entry.host };
        if (entry.bind !== undefined) copy.bind = entry.bind;
        if (entry.connect !== undefined) copy.connect = entry.connect;
        return copy;
      }),
    },
    resource: { path: input.resource.path },
  };
  if (input.resource.noverify !== undefined) document.resource.noverify = input.resource.noverify;
  if (input.exec) {
    requireText('exec.imp', input.exec.imp);
    document.exec = { imp: input.exec.imp };
  }
  if (
    input.access &&
    (input.access.allowGuestUser !== undefined || input.access.allowRootOwner !== undefined)
  ) {
    const access: NonNullable<BrokerConfigDocument['access']> = {};
    if (input.access.allowGuestUser !== undefined) access['allow-guest-user'] = input.access.allowGuestUser;
    if (input.access.allowRootOwner !== undefined) access['allow-root-owner'] = input.access.allowRootOwner;
    document.access = access;
  }
  if (input.archive) {
    requireText('archive.dbpath', input.archive.dbpath);
    const archive: NonNullable<BrokerConfigDocument['archive']> = { dbpath: input.archive.dbpath };
    if (input.archive.period !== undefined) archive.period = input.archive.period;
    if (input.archive.busytimeout !== undefined) archive.busytimeout = input.archive.busytimeout;
    document.archive = archive;
  }
  if (input.queuePolicy !== undefined) {
    document['sched-fluxion-qmanager'] = { 'queue-policy': input.queuePolicy };
  }
  if (input.scheduler !== undefined) {
    document.modules = { alternatives: { sched: input.scheduler, feasibility: input.scheduler } };
  }
  return document;
}

/** broker.toml text. Same input, same bytes. */
export function brokerConfigToml(input: BrokerConfigInput): string {
  return stringify(brokerConfigDocument(input));
}

// ---------------------------------------------------------------------------------------------
// Host lists of MiniClusters and burst clusters (docs/design.md §3).

/** Another MiniCluster listed in this instance's hosts (down until its pods join). */
export interface BurstSlot {
  /** Its Job name: its pods' hostnames are `<name>-0` ... `<name>-(size-1)`. */
  name: string;
  size: number;
}

export interface MiniClusterHostsInput {
  /** Job name of this MiniCluster: pods are `<name>-<index>`, index 0 is the lead broker. */
  name: string;
  /** Hosts listed for this MiniCluster (its maximum size), so it can grow without a new config. */
  maxSize: number;
  /** Clusters that may join this instance, in declared order; their ranks follow this cluster's. */
  burstSlots?: readonly BurstSlot[];
}

export interface BurstClusterHostsInput {
  /** The MiniCluster whose instance is joined, with the number of hosts its broker.toml lists for itself. */
  lead: { name: string; maxSize: number };
  /** Name the external side uses for rank 0: not a local pod, so it needs an explicit `connect`. */
  leadAlias: string;
  /** Address (IP or DNS name) and port where the lead broker is reachable from the external cluster. */
  leadAddress: string;
  leadPort: number;
  /** Optional `bind` for the alias entry; the default bind applies otherwise. */
  leadBind?: string;
  /** Every slot the lead declared, in the lead's order (this cluster's own slot included). */
  burstSlots: readonly BurstSlot[];
  /** Which of `burstSlots` this cluster is. */
  ownSlot: string;
}

/** RFC 1123 label, as Kubernetes requires of pod hostnames. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function indexedHostEntry(name: string, count: number, first = 0): BrokerHostEntry[] {
  if (count <= 0) return [];
  const hosts = indexedHostNames(name, count, first);
  const longest = hosts[hosts.length - 1] as string;
  if (!DNS_LABEL.test(longest) || longest.length > 63) {
    throw new Error(`pod hostname ${JSON.stringify(longest)} is not a DNS label of at most 63 characters`);
  }
  // What encodeHostlist makes of consecutive `<name>-<n>` DNS labels, written directly: this runs at
  // every render, where the general encoder's per-host work showed in profiles.
  const last = first + count - 1;
  return [{ host: count === 1 ? (hosts[0] as string) : `${name}-[${first}-${last}]` }];
}

function assertSize(name: string, size: number): void {
  if (!Number.isSafeInteger(size) || size < 1)
    throw new Error(`${name} must be an integer >= 1, got ${size}`);
}

function slotEntries(slots: readonly BurstSlot[]): BrokerHostEntry[] {
  return slots.flatMap((slot) => {
    assertSize(`size of burst slot ${JSON.stringify(slot.name)}`, slot.size);
    return indexedHostEntry(slot.name, slot.size);
  });
}

/** Hosts of a MiniCluster: `<name>-[0-(maxSize-1)]`, then each burst slot's `<slot>-[0-(size-1)]`. */
export function miniClusterHostEntries(input: MiniClusterHostsInput): BrokerHostEntry[] {
  assertSize('maxSize', input.maxSize);
  return [...indexedHostEntry(input.name, input.maxSize), ...slotEntries(input.burstSlots ?? [])];
}

/**
 * Hosts of an external (burst) cluster joining a MiniCluster's instance. The ranks are exactly the
 * lead side's: rank 0 is the lead broker under `leadAlias` with an explicit `connect`, then the
 * lead's other hosts `<lead>-[1-(maxSize-1)]`, then every declared slot in declared order (this
 * cluster's own slot in its place). Both sides thus list the same host at every rank but 0.
 */
export function burstClusterHostEntries(input: BurstClusterHostsInput): BrokerHostEntry[] {
  assertSize('lead.maxSize', input.lead.maxSize);
  if (!Number.isInteger(input.leadPort) || input.leadPort < 1 || input.leadPort > 65535) {
    throw new Error(`leadPort ${input.leadPort} is not a TCP port`);
  }
  requireText('leadAddress', input.leadAddress);
  requireText('leadAlias', input.leadAlias);
  if (!input.burstSlots.some((slot) => slot.name === input.ownSlot)) {
    throw new Error(`own slot ${JSON.stringify(input.ownSlot)} is not among the declared burst slots`);
  }
  // An IPv6 address needs brackets in a ZeroMQ endpoint.
  const address = input.leadAddress.includes(':') ? `[${input.leadAddress}]` : input.leadAddress;
  const leadEntry: BrokerHostEntry = { host: input.leadAlias };
  if (input.leadBind !== undefined) leadEntry.bind = input.leadBind;
  leadEntry.connect = `tcp://${address}:${input.leadPort}`;
  const entries = [
    leadEntry,
    ...indexedHostEntry(input.lead.name, input.lead.maxSize - 1, 1),
    ...slotEntries(input.burstSlots),
  ];
  expandBrokerHosts(entries); // the alias must not collide with a real host name
  return entries;
}
