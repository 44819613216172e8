/**
 * What the operator knows of a Flux instance's queue at one moment: the input of the burst planner,
 * produced by a FluxQueueReader (in the lead broker's pod, through the Kubernetes exec API).
 */

/** Job states of flux-core (RFC 21); `SCHED` means waiting for resources. */
export const FLUX_JOB_STATES = ['NEW', 'DEPEND', 'PRIORITY', 'SCHED', 'RUN', 'CLEANUP', 'INACTIVE'] as const;
export type FluxJobState = (typeof FLUX_JOB_STATES)[number];

export interface FluxJob {
  /** Flux job id in F58 with a plain `f` prefix (`fXPqVWUVP`), opaque to the operator. */
  readonly id: string;
  readonly state: FluxJobState;
  /**
   * Counts of the request. Flux leaves some unset until resources are allocated (a `-N4` job has no
   * ncores, a `-n8` job no nnodes): 0 means unknown here, and the planner treats it so.
   */
  readonly nnodes: number;
  readonly ntasks: number;
  readonly ncores: number;
  /** Submitted with `--setattr=burstable` (jobspec `attributes.system.burstable`). */
  readonly burstable: boolean;
  readonly name?: string;
  /** Submission time, seconds since the epoch. */
  readonly submittedAt?: number;
  /** The broker ranks it holds (running jobs; `ranks` of `flux jobs --json`), ascending. */
  readonly ranks?: readonly number[];
}

/** Broker ranks by state, each ascending (`flux resource list` and `flux resource status`). */
export interface RankStates {
  readonly up: readonly number[];
  readonly down: readonly number[];
  /** Ranks with a job (or part of one) on them. */
  readonly allocated: readonly number[];
  /** Drained in Flux, with a job still on them. */
  readonly draining: readonly number[];
  /** Drained in Flux, nothing on them. */
  readonly drained: readonly number[];
}

export interface QueueSnapshot {
  readonly takenAt: Date;
  readonly jobs: readonly FluxJob[];
  /** Brokers (nodes) of the instance: online ones, and those online with no job on them. */
  readonly nodes: { readonly up: number; readonly free: number };
  /** Each rank's state, when the reader lists them (the exec reader does). */
  readonly ranks?: RankStates;
}

/** What to do in the instance before the snapshot is taken, in the same round trip. */
export interface QueueActions {
  readonly drain?: readonly number[];
  readonly undrain?: readonly number[];
}

/** Reads a queue snapshot; implementations: exec into the lead pod, or a scripted one in tests. */
export interface FluxQueueReader {
  /** With actions: drain and undrain those ranks first (the exec reader does both in one exec). */
  snapshot(actions?: QueueActions): Promise<QueueSnapshot>;
}
