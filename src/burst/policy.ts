/**
 * The burst policy: how far and where a MiniCluster may burst, from `spec.flux.bursting.policy`
 * (policyOfSpec) or a JSON file for `burst plan --policy`. Pure: parsing returns problems naming the
 * field, it never throws.
 */
import type { DefaultedBurstPolicy } from '../api/index.ts';
import { MAX_BROKERS } from '../api/shared/limits.ts';

export interface BurstTarget {
  /** Name of a burst target (a provider: a kubeconfig Secret's cluster, GKE, EKS, this cluster). */
  readonly name: string;
  /** Price of one node for one hour; unset: free (this cluster, an on-premises one). */
  readonly costPerNodeHour?: number;
  /** Most nodes this target may hold across all burst clusters on it; unset: no limit. */
  readonly maxNodes?: number;
}

export interface BurstPolicy {
  /** Most burst nodes across all active burst clusters (Pending or Ready). */
  readonly maxBurstNodes: number;
  /** A burst cluster no burstable job needs for this long is removed. */
  readonly idleSeconds: number;
  /** Where burst clusters go: cheapest first, declared order among equal costs. */
  readonly targets: readonly BurstTarget[];
}

export const DEFAULT_IDLE_SECONDS = 600;
export const DEFAULT_TARGET_NAME = 'in-cluster';

/** No cap beyond the declared slots, ten idle minutes, this cluster (another namespace) as target. */
export const defaultBurstPolicy: BurstPolicy = {
  maxBurstNodes: MAX_BROKERS,
  idleSeconds: DEFAULT_IDLE_SECONDS,
  targets: [{ name: DEFAULT_TARGET_NAME }],
};

/** Targets in the order they are tried: by cost (unset = 0), then declared order. */
export function targetsByCost(targets: readonly BurstTarget[]): BurstTarget[] {
  return targets
    .map((target, index) => ({ target, index }))
    .sort((a, b) => (a.target.costPerNodeHour ?? 0) - (b.target.costPerNodeHour ?? 0) || a.index - b.index)
    .map(({ target }) => target);
}

export type ParseResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly string[] };

const TARGET_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownFields(value: Record<string, unknown>, known: readonly string[], where: string): string[] {
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => `${where}.${key}: unknown field; known fields are ${known.join(', ')}`);
}

function integerField(
  value: Record<string, unknown>,
  key: string,
  where: string,
  minimum: number,
  problems: string[],
): number | undefined {
  const field = value[key];
  if (field === undefined) return undefined;
  if (typeof field !== 'number' || !Number.isInteger(field) || field < minimum) {
    problems.push(`${where}.${key}: must be an integer >= ${minimum}, got ${JSON.stringify(field)}`);
    return undefined;
  }
  return field;
}

/**
 * A policy from parsed JSON (the future `spec.flux.bursting.policy`); missing fields take the
 * defaults. `source` prefixes every problem (e.g. the file name).
 */
export function parseBurstPolicy(value: unknown, source: string): ParseResult<BurstPolicy> {
  if (!isRecord(value)) return { ok: false, problems: [`${source}: the policy must be a JSON object`] };
  const problems = unknownFields(value, ['maxBurstNodes', 'idleSeconds', 'pollSeconds', 'targets'], source);
  const maxBurstNodes = integerField(value, 'maxBurstNodes', source, 0, problems);
  const idleSeconds = integerField(value, 'idleSeconds', source, 0, problems);
  // Accepted so a policy copied from a MiniCluster is valid; how often the queue is read is no part of a plan.
  integerField(value, 'pollSeconds', source, 1, problems);
  let targets: BurstTarget[] = [...defaultBurstPolicy.targets];
  if (value.targets !== undefined) {
    if (!Array.isArray(value.targets)) {
      problems.push(`${source}.targets: must be a list of {name, costPerNodeHour?, maxNodes?}`);
    } else {
      targets = [];
      value.targets.forEach((entry: unknown, index) => {
        const where = `${source}.targets[${index}]`;
        if (!isRecord(entry)) {
          problems.push(`${where}: must be an object {name, costPerNodeHour?, maxNodes?}`);
          return;
        }
        problems.push(...unknownFields(entry, ['name', 'costPerNodeHour', 'maxNodes'], where));
        if (typeof entry.name !== 'string' || !TARGET_NAME.test(entry.name)) {
          problems.push(
            `${where}.name: must be a DNS label (lower case, digits, '-'), got ${JSON.stringify(entry.name)}`,
          );
          return;
        }
        if (targets.some((target) => target.name === entry.name)) {
          problems.push(`${where}.name: target ${entry.name} is listed twice`);
        }
        const cost = entry.costPerNodeHour;
        if (cost !== undefined && (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0)) {
          problems.push(`${where}.costPerNodeHour: must be a number >= 0, got ${JSON.stringify(cost)}`);
        }
        const maxNodes = integerField(entry, 'maxNodes', where, 0, problems);
        targets.push({
          name: entry.name,
          ...(typeof cost === 'number' ? { costPerNodeHour: cost } : {}),
          ...(maxNodes !== undefined ? { maxNodes } : {}),
        });
      });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      maxBurstNodes: maxBurstNodes ?? defaultBurstPolicy.maxBurstNodes,
      idleSeconds: idleSeconds ?? defaultBurstPolicy.idleSeconds,
      targets,
    },
  };
}

/** The policy a MiniCluster declares (spec.flux.bursting.policy), completed with the defaults. */
export function policyOfSpec(spec: DefaultedBurstPolicy | undefined): BurstPolicy {
  if (spec === undefined) return defaultBurstPolicy;
  return {
    maxBurstNodes: spec.maxBurstNodes,
    idleSeconds: spec.idleSeconds,
    targets: spec.targets?.map((target) => ({ ...target })) ?? defaultBurstPolicy.targets,
  };
}
