// The measurements of `npm run bench -- --mpi`, round after round. Each round, one step at a time (the
// node to itself: each pod and MiniCluster is gone before the next starts):
//   floor:          each program's ranks started by its MPI's launcher in one plain pod;
//   apply-to-done:  a MiniCluster of `size` pods whose command is the LAMMPS melt, apply to Succeeded;
//   minicluster:    an interactive MiniCluster per image, in which each program runs by `flux run`, with
//                   Flux's default binding and with `-o cpu-affinity=off`, the first of the two taking
//                   turns round by round.
import type { KubeClients } from '../../src/kube/clients.ts';
import { lammpsLoop, netpipeFigures } from './mpi-logs.ts';
import { fluxRun, runToSucceeded, withInteractiveMiniCluster } from './mpi-minicluster.ts';
import { runPodOnce } from './mpi-pod.ts';
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
import type { HnsAvailability, MpiFigureName, MpiSample, StartSample } from './mpi-result.ts';
import type { SampleTarget } from './view-sample.ts';

export interface RoundsTarget {
  clients: KubeClients;
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

export async function measureRounds(
  target: RoundsTarget,
  rounds: number,
  hns: HnsAvailability,
): Promise<RoundsResult> {
  const result: RoundsResult = { samples: [], starts: [], order: [] };
  const groups = programsByImage(hns);
  const record = (round: number, step: string, program: MpiProgram, run: MpiRunKind, output: string) => {
    const figures = figuresOf(program, output);
    result.samples.push({ round, program: program.name, run, figures });
    result.order.push(`${round} ${step} ${program.name}${step === 'floor' ? '' : ` ${run}`}`);
    target.progress(`round ${round}/${rounds}: ${program.name} ${run}: ${describe(figures)}`);
  };
  const miniClusterTarget = (name: string): SampleTarget => ({ ...target, name });

  for (let round = 1; round <= rounds; round++) {
    let ljPodSeconds = Number.NaN;
    let ljPodStatusSeconds = Number.NaN;
    for (const program of groups.flat()) {
      const ranks = ranksOf(program, target.size);
      const argv = floorArgv(program, ranks, target.nodeCpus);
      const run = await runPodOnce(
        target,
        floorPod(target.namespace, `floor-${program.name}-${round}`, program, argv),
      );
      record(round, 'floor', program, 'floor', run.log);
      if (program === LJ) [ljPodSeconds, ljPodStatusSeconds] = [run.seconds, run.statusSeconds];
    }

    const done = miniClusterTarget('lj-done');
    const { sample, log } = await runToSucceeded(
      done,
      mpiMiniCluster(target.namespace, done.name, target.size, LJ.image, LJ),
    );
    const loopSeconds = lammpsLoop(log).seconds;
    result.starts.push({
      round,
      podSeconds: ljPodSeconds,
      podStatusSeconds: ljPodStatusSeconds,
      miniClusterSeconds: sample.succeededSeconds,
      miniClusterPodsStartedSeconds: sample.podsStartedSeconds,
      miniClusterLoopSeconds: loopSeconds,
    });
    result.order.push(`${round} apply-to-done lj`);
    target.progress(
      `round ${round}/${rounds}: apply-to-done ${sample.succeededSeconds.toFixed(2)} s (loop ${loopSeconds} s), ` +
        `the floor pod's ${ljPodSeconds.toFixed(2)} s`,
    );

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
