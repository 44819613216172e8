import type { BurstCluster, BurstSlot, PlannerInput } from '../../../src/burst/planner.ts';
import type { BurstPolicy } from '../../../src/burst/policy.ts';
import type { FluxJob, FluxJobState } from '../../../src/burst/queue.ts';

export const NOW = new Date('2026-01-01T12:00:00Z');

export function secondsAgo(seconds: number): Date {
  return new Date(NOW.getTime() - seconds * 1000);
}

export function job(id: string, nnodes: number, state: FluxJobState = 'SCHED', burstable = true): FluxJob {
  return { id, state, nnodes, ntasks: nnodes, ncores: nnodes * 4, burstable };
}

export function cluster(
  slot: string,
  size: number,
  options: Partial<Omit<BurstCluster, 'slot' | 'size'>> = {},
): BurstCluster {
  return { slot, size, target: 'in-cluster', state: 'Ready', createdAt: secondsAgo(3600), ...options };
}

export const POLICY: BurstPolicy = {
  maxBurstNodes: 100,
  idleSeconds: 300,
  targets: [{ name: 'in-cluster' }],
};

export function slots(...sizes: number[]): BurstSlot[] {
  return sizes.map((size, index) => ({ name: `burst-${index}`, size }));
}

/** A planner input: 2 local brokers, one 4-host slot, no jobs, no clusters, POLICY; override any part. */
export function input(
  overrides: Partial<Omit<PlannerInput, 'queue'>> & { jobs?: FluxJob[]; up?: number; free?: number } = {},
): PlannerInput {
  const { jobs = [], up, free = 0, ...rest } = overrides;
  const localSize = rest.localSize ?? 2;
  return {
    localSize,
    slots: slots(4),
    clusters: [],
    policy: POLICY,
    now: NOW,
    ...rest,
    queue: { takenAt: NOW, jobs, nodes: { up: up ?? localSize, free } },
  };
}
