// The one JSON line `npm run bench -- --mpi` prints: per program and kind of run the medians of its
// figures and every sample, per LAMMPS program its apply-to-done against its floor pod's start-to-done,
// the ratios, and the targets of issue 30 with whether each is met. Every ratio is a slowdown: how many
// times slower the run is than what it is compared with (times over times; for a bandwidth, the other's
// over the run's), so 1.0 means as fast and above 1 slower.
import { medianPhases, type LeadPhases } from './mpi-phases.ts';
import type { MpiProgramName, MpiRunKind } from './mpi-programs.ts';
import { round } from './process-metrics.ts';
import { median } from './view-result.ts';

/** Issue 30's targets. */
export const HNS_FLOOR_TARGET = 1.1;
export const BINDING_OFF_TARGET = 1.1;
export const APPLY_TO_DONE_TARGET = 1.2;

/** A program's figures: lower is better for a time, higher for a bandwidth. */
const FIGURES = {
  loop_seconds: 'lower',
  latency_usec: 'lower',
  bandwidth_mbps: 'higher',
} as const;
export type MpiFigureName = keyof typeof FIGURES;

/** The LAMMPS programs, whose apply-to-done is measured (a MiniCluster whose command is the program). */
export const LAMMPS_PROGRAMS = ['lj', 'hns'] as const satisfies readonly MpiProgramName[];
export type LammpsProgramName = (typeof LAMMPS_PROGRAMS)[number];

/** One run of one program. */
export interface MpiSample {
  round: number;
  program: MpiProgramName;
  run: MpiRunKind;
  figures: Partial<Record<MpiFigureName, number>>;
}

/** One round's apply-to-done of a LAMMPS program: its floor pod against the MiniCluster whose command it is. */
export interface StartSample {
  round: number;
  program: LammpsProgramName;
  /** From the pod's create request to its container seen terminated. */
  podSeconds: number;
  /** The pod's creationTimestamp to its container's finishedAt (whole seconds: the API's precision). */
  podStatusSeconds: number;
  /** From the MiniCluster's apply to its Succeeded condition seen. */
  miniClusterSeconds: number;
  /** From the apply to every pod's containers started. */
  miniClusterPodsStartedSeconds: number;
  /** The loop time its lead broker's log gave. */
  miniClusterLoopSeconds: number;
  /** Where its time went: each step of its lead pod, in seconds after the apply (mpi-phases.ts). */
  miniClusterPhases: LeadPhases;
}

/** Whether HNS ran, and in which image (one whose LAMMPS has ReaxFF), or why not. */
export type HnsAvailability = { available: true; image: string } | { available: false; reason: string };

export interface MpiRunContext {
  size: number;
  rounds: number;
  machineCpus: number;
  node: { name: string; cpus: number };
  images: { lammps: string; mpich: string; fluxView: string };
  /** Each program's ranks and the command of each kind of run. */
  commands: Partial<Record<MpiProgramName, { ranks: number } & Record<MpiRunKind, string>>>;
  /** The steps of every round, in order. */
  order: string[];
  hns: HnsAvailability;
}

/** One kind of run of a program: the median of each of its figures, and every sample. */
export type RunResult = { [median: `median_${string}`]: number } & {
  samples: Partial<Record<MpiFigureName, number[]>>;
};
type Ratios = Partial<Record<MpiFigureName, number | null>>;

export interface ProgramResult {
  ranks: number;
  floor: RunResult;
  flux: RunResult;
  binding_off: RunResult;
  /** flux's slowdown against the floor, per figure. */
  floor_ratio: Ratios;
  /** flux's slowdown against binding off, per figure. */
  binding_off_ratio: Ratios;
  binding_off_within_target: boolean;
}

export interface ApplyToDoneResult {
  pod: { median_seconds: number; samples: { seconds: number[]; status_seconds: number[] } };
  minicluster: {
    median_seconds: number;
    median_pods_started_seconds: number;
    median_loop_seconds: number;
    /** Each step of the lead pod (mpi-phases.ts), seconds after the apply: the median of the rounds that logged it. */
    median_phase_seconds: LeadPhases;
    samples: {
      seconds: number[];
      pods_started_seconds: number[];
      loop_seconds: number[];
      phases: LeadPhases[];
    };
  };
  /** The MiniCluster's apply-to-done over the pod's start-to-done (medians). */
  ratio: number | null;
  /** The MiniCluster's apply-to-done less the pod's start-to-done (medians): the operator's and Flux's cost. */
  overhead_seconds: number;
  within_target: boolean;
}

export interface MpiResult {
  mode: 'mpi';
  size: number;
  rounds: number;
  machine_cpus: number;
  node: { name: string; cpus: number };
  images: { lammps: string; mpich: string; flux_view: string };
  commands: MpiRunContext['commands'];
  order: string[];
  targets: { hns_floor_ratio: number; binding_off_ratio: number; apply_to_done_ratio: number };
  /** null: not measured (no LAMMPS with ReaxFF), which is neither met nor missed. */
  within_target: {
    hns_floor: boolean | null;
    binding_off: boolean;
    apply_to_done: { lj: boolean; hns: boolean | null };
  };
  lj?: ProgramResult;
  hns: HnsAvailability | (ProgramResult & { available: true; image: string; floor_within_target: boolean });
  netpipe?: ProgramResult;
  /** Per LAMMPS program; hns absent when HNS did not run. */
  apply_to_done: { lj: ApplyToDoneResult; hns?: ApplyToDoneResult };
}

/** `run`'s slowdown against `reference`; null when there is nothing to compare. */
function slowdown(figure: MpiFigureName, run: number, reference: number): number | null {
  const [slower, faster] = FIGURES[figure] === 'lower' ? [run, reference] : [reference, run];
  return faster === 0 || !Number.isFinite(slower / faster) ? null : slower / faster;
}

function roundOrNull(value: number | null): number | null {
  return value === null ? null : round(value);
}

/** Within the target, compared before rounding (1.104 is not within 1.1); false when not measured. */
function within(ratios: Partial<Record<MpiFigureName, number | null>>, target: number): boolean {
  const values = Object.values(ratios);
  return values.length > 0 && values.every((ratio) => ratio !== null && ratio <= target);
}

function mapFigures<T>(figures: readonly MpiFigureName[], value: (figure: MpiFigureName) => T) {
  return Object.fromEntries(figures.map((figure) => [figure, value(figure)])) as Partial<
    Record<MpiFigureName, T>
  >;
}

function roundRatios(ratios: Ratios): Ratios {
  return Object.fromEntries(Object.entries(ratios).map(([figure, ratio]) => [figure, roundOrNull(ratio)]));
}

function programResult(samples: readonly MpiSample[], program: MpiProgramName, ranks: number) {
  const of = samples.filter((sample) => sample.program === program);
  const figures = (Object.keys(FIGURES) as MpiFigureName[]).filter((figure) =>
    of.some((sample) => sample.figures[figure] !== undefined),
  );
  const valuesOf = (run: MpiRunKind, figure: MpiFigureName) =>
    of.flatMap((sample) => {
      const value = sample.figures[figure];
      return sample.run === run && value !== undefined ? [value] : [];
    });
  const runResult = (run: MpiRunKind): RunResult => ({
    ...Object.fromEntries(
      figures.map((figure) => [`median_${figure}`, round(median(valuesOf(run, figure)))]),
    ),
    samples: mapFigures(figures, (figure) => valuesOf(run, figure)),
  });
  const ratios = (reference: MpiRunKind) =>
    mapFigures(figures, (figure) =>
      slowdown(figure, median(valuesOf('flux', figure)), median(valuesOf(reference, figure))),
    );
  const floor = ratios('floor');
  const bindingOff = ratios('binding_off');
  const result: ProgramResult = {
    ranks,
    floor: runResult('floor'),
    flux: runResult('flux'),
    binding_off: runResult('binding_off'),
    floor_ratio: roundRatios(floor),
    binding_off_ratio: roundRatios(bindingOff),
    binding_off_within_target: within(bindingOff, BINDING_OFF_TARGET),
  };
  return { result, floorWithin: within(floor, HNS_FLOOR_TARGET) };
}

function applyToDone(starts: readonly StartSample[], program: LammpsProgramName): ApplyToDoneResult {
  const samples = starts.filter((sample) => sample.program === program);
  const pod = samples.map((sample) => sample.podSeconds);
  const miniCluster = samples.map((sample) => sample.miniClusterSeconds);
  const started = samples.map((sample) => sample.miniClusterPodsStartedSeconds);
  const loop = samples.map((sample) => sample.miniClusterLoopSeconds);
  const ratio = median(pod) === 0 ? null : median(miniCluster) / median(pod);
  return {
    pod: {
      median_seconds: round(median(pod)),
      samples: { seconds: pod.map(round), status_seconds: samples.map((sample) => sample.podStatusSeconds) },
    },
    minicluster: {
      median_seconds: round(median(miniCluster)),
      median_pods_started_seconds: round(median(started)),
      median_loop_seconds: round(median(loop)),
      median_phase_seconds: medianPhases(samples.map((sample) => sample.miniClusterPhases)),
      samples: {
        seconds: miniCluster.map(round),
        pods_started_seconds: started.map(round),
        loop_seconds: loop,
        phases: samples.map((sample) => sample.miniClusterPhases),
      },
    },
    ratio: roundOrNull(ratio),
    overhead_seconds: round(median(miniCluster) - median(pod)),
    within_target: ratio !== null && ratio <= APPLY_TO_DONE_TARGET,
  };
}

export function mpiResult(
  samples: readonly MpiSample[],
  starts: readonly StartSample[],
  context: MpiRunContext,
): MpiResult {
  const measure = (program: MpiProgramName) => {
    const ranks = context.commands[program]?.ranks;
    return ranks === undefined ? undefined : programResult(samples, program, ranks);
  };
  const [lj, hns, netpipe] = [measure('lj'), measure('hns'), measure('netpipe')];
  const measured = [lj, hns, netpipe].flatMap((program) => (program === undefined ? [] : [program.result]));
  const startLj = applyToDone(starts, 'lj');
  const startHns = starts.some((sample) => sample.program === 'hns') ? applyToDone(starts, 'hns') : undefined;
  return {
    mode: 'mpi',
    size: context.size,
    rounds: context.rounds,
    machine_cpus: context.machineCpus,
    node: context.node,
    images: {
      lammps: context.images.lammps,
      mpich: context.images.mpich,
      flux_view: context.images.fluxView,
    },
    commands: context.commands,
    order: context.order,
    targets: {
      hns_floor_ratio: HNS_FLOOR_TARGET,
      binding_off_ratio: BINDING_OFF_TARGET,
      apply_to_done_ratio: APPLY_TO_DONE_TARGET,
    },
    within_target: {
      hns_floor: hns === undefined ? null : hns.floorWithin,
      binding_off: measured.length > 0 && measured.every((program) => program.binding_off_within_target),
      apply_to_done: {
        lj: startLj.within_target,
        hns: startHns === undefined ? null : startHns.within_target,
      },
    },
    ...(lj === undefined ? {} : { lj: lj.result }),
    hns:
      hns === undefined || !context.hns.available
        ? context.hns
        : { ...context.hns, ...hns.result, floor_within_target: hns.floorWithin },
    ...(netpipe === undefined ? {} : { netpipe: netpipe.result }),
    apply_to_done: { lj: startLj, ...(startHns === undefined ? {} : { hns: startHns }) },
  };
}

export function mpiLine(...args: Parameters<typeof mpiResult>): string {
  return `${JSON.stringify(mpiResult(...args))}\n`;
}
