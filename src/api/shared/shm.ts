/**
 * The brokers' /dev/shm (`spec.pod.shmSize`, shm-cel.ts), as both versions size and check it: the
 * memory limits it must fit in, the size it gets, and the problems of a size, twin of the CEL rules
 * in shm-cel.ts. The rules are each version's: ../rules.ts (with hostIPC, which only v1alpha2 has)
 * and ../v1alpha1/shm-rules.ts.
 */
import type { Problem } from './problems.ts';
import { quantityNanos } from './quantity.ts';
import { quantityValueProblems } from './resource-problems.ts';
import { DEFAULT_SHM_SIZE, SHM_HOST_IPC_MESSAGE, SHM_OVER_LIMIT_WHY } from './shm-cel.ts';

type Quantity = string | number;

/** What the size of /dev/shm depends on, as both versions' defaulted specs hold it. */
export interface ShmSpecView {
  readonly pod?:
    | {
        readonly shmSize?: Quantity | undefined;
        readonly resources?: Readonly<Record<string, Quantity>> | undefined;
        readonly hostIPC?: boolean | undefined;
      }
    | undefined;
  readonly containers: readonly {
    readonly runFlux: boolean;
    readonly resources?: { readonly limits?: Readonly<Record<string, Quantity>> | undefined } | undefined;
  }[];
}

/** A memory limit /dev/shm must fit in: whose it is, the field that sets it and its value. */
export interface ShmMemoryLimit {
  readonly of: string;
  readonly path: string;
  readonly value: Quantity;
}

/**
 * The memory limits that bound /dev/shm: the Flux container's (its job's processes write there,
 * and what they write counts against it) and the pod's (spec.pod.resources.memory).
 */
export function shmMemoryLimits(spec: ShmSpecView): ShmMemoryLimit[] {
  const limits: ShmMemoryLimit[] = [];
  spec.containers.forEach((container, index) => {
    const memory = container.resources?.limits?.memory;
    if (container.runFlux && memory !== undefined) {
      const path = `spec.containers[${index}].resources.limits.memory`;
      limits.push({ of: 'the Flux container', path, value: memory });
    }
  });
  const pod = spec.pod?.resources?.memory;
  if (pod !== undefined) limits.push({ of: 'the pod', path: 'spec.pod.resources.memory', value: pod });
  return limits;
}

/**
 * The size limit of the operator's /dev/shm, as Kubernetes writes a quantity; undefined when the
 * pods get none: `shmSize` 0, or unset with hostIPC (the node's /dev/shm is the point of it). Unset
 * otherwise: DEFAULT_SHM_SIZE, or the smallest memory limit (shmMemoryLimits) when that is smaller,
 * as the kubelet itself sizes a memory-backed volume to the pod's limit.
 */
export function shmSizeLimit(spec: ShmSpecView): string | undefined {
  const given = spec.pod?.shmSize;
  if (given !== undefined) return quantityNanos(given) === 0n ? undefined : String(given);
  if (spec.pod?.hostIPC === true) return undefined;
  let size: { nanos: bigint; text: string } = {
    nanos: quantityNanos(DEFAULT_SHM_SIZE) ?? 0n,
    text: DEFAULT_SHM_SIZE,
  };
  for (const { value } of shmMemoryLimits(spec)) {
    const nanos = quantityNanos(value);
    // A limit of 0 bounds nothing (the kubelet reads it so too).
    if (nanos !== undefined && nanos > 0n && nanos < size.nanos) size = { nanos, text: String(value) };
  }
  return size.text;
}

/** Problems of `shmSize` against the memory limits, for the validator (and v1alpha2's hostIPC). */
export function shmSizeProblems(spec: ShmSpecView): Problem[] {
  const path = 'spec.pod.shmSize';
  const given = spec.pod?.shmSize;
  if (given === undefined) return [];
  const invalid = quantityValueProblems(path, given);
  if (invalid.length > 0) return invalid;
  const size = quantityNanos(given) ?? 0n;
  const problems: Problem[] = [];
  for (const limit of shmMemoryLimits(spec)) {
    const nanos = quantityNanos(limit.value);
    if (nanos === undefined || size <= nanos) continue;
    problems.push({
      path,
      message: `is ${given}, more than the memory limit of ${limit.of} (${limit.path}: ${limit.value}): ${SHM_OVER_LIMIT_WHY}; lower shmSize, or raise ${limit.path}`,
    });
  }
  if (spec.pod?.hostIPC === true && size > 0n) problems.push({ path, message: SHM_HOST_IPC_MESSAGE });
  return problems;
}
