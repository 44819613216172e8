// The measurements of `npm run bench -- --mpi`, round after round. Each round, one step at a time (the
// node to itself: each pod and MiniCluster is gone before the next starts):
//   floor:          each program's ranks started by its MPI's launcher in one plain pod;
//   apply-to-done:  per LAMMPS program (the melt; HNS when it runs), a MiniCluster of `size` pods whose
//                   command is the program, apply to Succeeded, against its floor pod of the round;
//   minicluster:    an interactive MiniCluster per image, in which each program runs by `flux run`, with
//                   Flux's default binding and with `-o cpu-affinity=off`, the first of the two taking
//                   turns round by round.
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { lammpsLoop, netpipeFigures } from './mpi-logs.ts';
import { phaseWords } from './mpi-phases.ts';
import { fluxRun, runToSucceeded, withInteractiveMiniCluster } from './mpi-minicluster.ts';
import { runPodOnce, type PodRun } from './mpi-pod.ts';
import {
  LJ,
  NETPIPE,
  floorArgv,
  floorPod,
  fluxRunArgs,
  hnsProgram,
  mpiMiniCluster,
  ranksOf,
  type MpiProgram,
  type MpiRunKind,
} from './mpi-programs.ts';
import {
  LAMMPS_PROGRAMS,
  type HnsAvailability,
  type LammpsProgramName,
  type MpiFigureName,
  type MpiSample,
  type StartSample,
} from './mpi-result.ts';
import type { SampleTarget } from './view-sample.ts';

export interface RoundsTarget {
  clients: ApiClients;
  namespace: string;
  /** Pods of each MiniCluster. */
  size: number;
  /** CPUs of the real node (whether OpenMPI's launcher must oversubscribe). */
  nodeCpus: number;
  timeoutMs: number;
  signal: AbortSignal;
  progress(line: string): void;
}

export interface RoundsResult {
  samples: MpiSample[];
  starts: StartSample[];
  /** Every step as it ran: `<round> <step> <program> [<run>]`. */
  order: string[];
}

/** Which of Flux's default binding and binding off runs first in a round: they take turns. */
export function bindingOrder(round: number): ['flux', 'binding_off'] | ['binding_off', 'flux'] {
  return round % 2 === 1 ? ['flux', 'binding_off'] : ['binding_off', 'flux'];
}

/** The figures of a program's output. */
export function figuresOf(program: MpiProgram, output: string): MpiSample['figures'] {
  if (program.launcher === 'mpich') {
    const netpipe = netpipeFigures(output);
    return { latency_usec: netpipe.latencyMicros, bandwidth_mbps: netpipe.bandwidthMbps };
  }
  return { loop_seconds: lammpsLoop(output).seconds };
}

function describe(figures: MpiSample['figures']): string {
  return (Object.entries(figures) as [MpiFigureName, number][])
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
}

/**
 * The programs measured, by image, in order: the programs of one image share its interactive MiniCluster
 * (the melt and HNS, when HNS runs in Debian's LAMMPS image).
 */
export function programsByImage(hns: HnsAvailability): MpiProgram[][] {
  const programs = [LJ, ...(hns.available ? [hnsProgram(hns.image)] : []), NETPIPE];
  const images = [...new Set(programs.map((program) => program.image))];
  return images.map((image) => programs.filter((program) => program.image === image));
}

/** The programs whose apply-to-done is measured, in order: the LAMMPS ones (the melt, then HNS when it runs). */
export function applyToDonePrograms(hns: HnsAvailability): (MpiProgram & { name: LammpsProgramName })[] {
  return programsByImage(hns)
    .flat()
    .filter((program): program is MpiProgram & { name: LammpsProgramName } =>
      (LAMMPS_PROGRAMS as readonly string[]).includes(program.name),
    );
}

export async function measureRounds(
  target: RoundsTarget,
  rounds: number,
  hns: HnsAvailability,
): Promise<RoundsResult> {
  const result: RoundsResult = { samples: [], starts: [], order: [] };
  const groups = programsByImage(hns);
  const applyToDone = applyToDonePrograms(hns);
  const record = (round: number, step: string, program: MpiProgram, run: MpiRunKind, output: string) => {
    const figures = figuresOf(program, output);
    result.samples.push({ round, program: program.name, run, figures });
    result.order.push(`${round} ${step} ${program.name}${step === 'floor' ? '' : ` ${run}`}`);
    target.progress(`round ${round}/${rounds}: ${program.name} ${run}: ${describe(figures)}`);
  };
  const miniClusterTarget = (name: string): SampleTarget => ({ ...target, name });

  for (let round = 1; round <= rounds; round++) {
    const floors = new Map<MpiProgram['name'], PodRun>();
    for (const program of groups.flat()) {
      const ranks = ranksOf(program, target.size);
      const argv = floorArgv(program, ranks, target.nodeCpus);
      const run = await runPodOnce(
        target,
        floorPod(target.namespace, `floor-${program.name}-${round}`, program, argv),
      );
      record(round, 'floor', program, 'floor', run.log);
      floors.set(program.name, run);
    }

    for (const program of applyToDone) {
      const floor = floors.get(program.name);
      if (floor === undefined) throw new Error(`round ${round}: no floor pod of ${program.name}`);
      const done = miniClusterTarget(`${program.name}-done`);
      const { sample, log, phases } = await runToSucceeded(
        done,
        mpiMiniCluster(target.namespace, done.name, target.size, program.image, program),
      );
      const loopSeconds = lammpsLoop(log).seconds;
      result.starts.push({
        round,
        program: program.name,
        podSeconds: floor.seconds,
        podStatusSeconds: floor.statusSeconds,
        miniClusterSeconds: sample.succeededSeconds,
        miniClusterPodsStartedSeconds: sample.podsStartedSeconds,
        miniClusterLoopSeconds: loopSeconds,
        miniClusterPhases: phases,
      });
      result.order.push(`${round} apply-to-done ${program.name}`);
      target.progress(
        `round ${round}/${rounds}: ${program.name} apply-to-done ${sample.succeededSeconds.toFixed(2)} s ` +
          `(loop ${loopSeconds} s), the floor pod's ${floor.seconds.toFixed(2)} s; ${phaseWords(phases)}`,
      );
    }

    for (const programs of groups) {
      const [first] = programs;
      if (first === undefined) continue;
      const interactive = miniClusterTarget(first.name);
      await withInteractiveMiniCluster(
        interactive,
        mpiMiniCluster(target.namespace, interactive.name, target.size, first.image),
        async (lead) => {
          for (const program of programs) {
            for (const run of bindingOrder(round)) {
              const args = fluxRunArgs(program, ranksOf(program, target.size), run);
              record(round, 'minicluster', program, run, await fluxRun(interactive, lead, args));
            }
          }
        },
      );
    }
  }
  return result;
}
