/**
 * What the operator knows of a Flux instance's queue at one moment: the input of the burst planner,
 * produced by a FluxQueueReader (in the lead broker's pod, through the Kubernetes exec API).
 */

/** Job states of flux-core (RFC 21); `SCHED` means waiting for resources. */
export const FLUX_JOB_STATES = ['NEW', 'DEPEND', 'PRIORITY', 'SCHED', 'RUN', 'CLEANUP', 'INACTIVE'] as const;
export type FluxJobState = (typeof FLUX_JOB_STATES)[number];

export interface FluxJob {
  /** Flux job id as `flux jobs` prints it (f58 or decimal), opaque to the operator. */
  readonly id: string;
  readonly state: FluxJobState;
  readonly nnodes: number;
  readonly ntasks: number;
  readonly ncores: number;
  /** Submitted with `--setattr=burstable` (jobspec `attributes.system.burstable`). */
  readonly burstable: boolean;
  readonly name?: string;
  /** Submission time, seconds since the epoch. */
  readonly submittedAt?: number;
}

export interface QueueSnapshot {
  readonly takenAt: Date;
  readonly jobs: readonly FluxJob[];
  /** Brokers (nodes) of the instance: online ones, and those online with no job on them. */
  readonly nodes: { readonly up: number; readonly free: number };
}

/** Reads a queue snapshot; implementations: exec into the lead pod, or a scripted one in tests. */
export interface FluxQueueReader {
  snapshot(): Promise<QueueSnapshot>;
}
