/**
 * R, the Flux resource set (RFC 20, version 1), computed by the operator when the cores (and GPUs)
 * per node are known. Every broker of an instance reads the same R; its nodelist must name exactly
 * the hosts of that side's broker.toml, in rank order, or brokers fail "reranking R".
 */
import { encodeHostlist } from './hostlist.ts';

export interface ResourceSpecInput {
  /** Host names in rank order (expanded, one per broker). */
  hosts: readonly string[];
  coresPerNode: number;
  /** GPUs per node; omitted or 0 for none. */
  gpusPerNode?: number;
}

export interface ResourceChildren {
  core: string;
  gpu?: string;
}

export interface ResourceSetV1 {
  version: 1;
  execution: {
    R_lite: { rank: string; children: ResourceChildren }[];
    nodelist: string[];
    starttime: number;
    expiration: number;
  };
}

/** The RFC 22 idset `0-(count-1)` (just `0` for a single id). */
export function idsetFromZero(count: number): string {
  return count === 1 ? '0' : `0-${count - 1}`;
}

function assertCount(name: string, value: number, minimum: number): void {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new Error(`${name} must be an integer >= ${minimum}, got ${value}`);
  }
}

export function resourceSpec(input: ResourceSpecInput): ResourceSetV1 {
  const { hosts, coresPerNode } = input;
  const gpusPerNode = input.gpusPerNode ?? 0;
  if (hosts.length === 0) throw new Error('R needs at least one host');
  assertCount('coresPerNode', coresPerNode, 1);
  assertCount('gpusPerNode', gpusPerNode, 0);
  const seen = new Set<string>();
  for (const host of hosts) {
    if (seen.has(host))
      throw new Error(`host ${JSON.stringify(host)} is listed twice: each rank needs its own host`);
    seen.add(host);
  }

  const children: ResourceChildren = { core: idsetFromZero(coresPerNode) };
  if (gpusPerNode > 0) children.gpu = idsetFromZero(gpusPerNode);
  return {
    version: 1,
    execution: {
      // Every node has the same children, so one R_lite entry covers all ranks.
      R_lite: [{ rank: idsetFromZero(hosts.length), children }],
      nodelist: [encodeHostlist(hosts)],
      // 0/0: no time limits; the instance owns these resources for its whole life.
      starttime: 0,
      expiration: 0,
    },
  };
}

/** R as the JSON text Flux reads from `[resource] path`. */
export function resourceSpecJson(input: ResourceSpecInput): string {
  return JSON.stringify(resourceSpec(input));
}
