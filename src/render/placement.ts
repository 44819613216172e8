/**
 * What the spec says of the CPUs and GPUs of a broker's pod, for the entrypoint's placement
 * (flux/entrypoint.ts `PlacementInput`, docs/mpi.md). The pod decides the rest when it starts: only
 * it sees the CPUs it may run on.
 */
import { quantityCeilUnits, quantityNanos, quantityUnits } from '../api/shared/quantity.ts';
import type { PlacementInput } from '../flux/index.ts';
import { layoutOf } from './layout.ts';
import type { DefaultedContainer, DefaultedMiniCluster } from './model.ts';

/** Where the entrypoint writes the job shell's initrc: its own folder in the pod's state volume. */
export const SHELL_RC_FOLDER = 'shell';

type QuantityMap = Readonly<Record<string, string | number>>;

/** Whole units rounded up; undefined for a quantity that does not parse. */
function ceilUnits(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const nanos = quantityNanos(value);
  if (nanos === undefined) return undefined;
  return Number(quantityCeilUnits(nanos));
}

/** Whole units, when the quantity is a whole number (a static CPU manager gives cores only to those). */
function wholeUnits(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const nanos = quantityNanos(value);
  if (nanos === undefined) return undefined;
  const units = quantityUnits(nanos);
  return units === undefined ? undefined : Number(units);
}

/** A request as Kubernetes defaults it: the limit, where only the limit is given. */
function requestOf(name: string, limits: QuantityMap, requests: QuantityMap): string | number | undefined {
  return requests[name] ?? limits[name];
}

function sameQuantity(a: string | number | undefined, b: string | number | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const left = quantityNanos(a);
  return left !== undefined && left === quantityNanos(b);
}

/**
 * GPU resources: an extended resource named `gpu` in a vendor's domain (`nvidia.com/gpu`,
 * `amd.com/gpu`), each unit one device that the device plugin shows to the container.
 */
export function isGpuResource(name: string): boolean {
  return /^[a-z0-9.-]+\/gpu$/.test(name);
}

/** GPUs of a container's limits (extended resources are asked for as limits; requests equal them). */
export function gpuCount(limits: QuantityMap, requests: QuantityMap = {}): number {
  let count = 0;
  const names = new Set([...Object.keys(limits), ...Object.keys(requests)].filter(isGpuResource));
  for (const name of names) count += wholeUnits(limits[name] ?? requests[name]) ?? 0;
  return count;
}

/**
 * Whole CPUs that are the container's own under the static CPU manager: its CPU request is a whole
 * number equal to its limit, and its memory request equals its memory limit (a Guaranteed pod).
 */
export function exclusiveCpus(limits: QuantityMap, requests: QuantityMap): number | undefined {
  const cpuLimit = limits.cpu;
  if (!sameQuantity(requestOf('cpu', limits, requests), cpuLimit)) return undefined;
  if (!sameQuantity(requestOf('memory', limits, requests), limits.memory)) return undefined;
  const cpus = wholeUnits(cpuLimit);
  return cpus !== undefined && cpus > 0 ? cpus : undefined;
}

/** The placement of the pods of `miniCluster`, whose Flux container is `container`. */
export function placementInput(
  miniCluster: DefaultedMiniCluster,
  container: DefaultedContainer,
): PlacementInput {
  const limits: QuantityMap = container.resources?.limits ?? {};
  const requests: QuantityMap = container.resources?.requests ?? {};
  const placement: PlacementInput = { shellRcDir: `${layoutOf(miniCluster).stateRoot}/${SHELL_RC_FOLDER}` };
  const exclusive = exclusiveCpus(limits, requests);
  if (exclusive !== undefined) placement.exclusiveCpus = exclusive;
  // The pod's own limit (pod-level resources) bounds its containers when they set none.
  const cpuLimit = ceilUnits(limits.cpu ?? miniCluster.spec.pod?.resources?.cpu);
  if (cpuLimit !== undefined && cpuLimit > 0) placement.cpuLimit = cpuLimit;
  const gpus = gpuCount(limits, requests);
  if (gpus > 0) placement.gpus = gpus;
  return placement;
}
