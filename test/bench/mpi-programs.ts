// The MPI programs `npm run bench -- --mpi` runs and how each kind of run starts them: inside one pod by
// the MPI's own launcher (the floor), by `flux run` in a MiniCluster with Flux's default binding, and
// with binding off. Pure: argument lists and objects.
import type { V1Pod } from '@kubernetes/client-node';
import { API_VERSION } from '../../src/api/index.ts';
import {
  LAMMPS_EXAMPLES_DIR,
  LAMMPS_HNS_DIR,
  LAMMPS_OPENMPI_IMAGE,
  LAMMPS_PROGRAM,
  MPICH_IMAGE,
  NETPIPE_MPICH_PROGRAM,
} from '../../workbench/src/images/index.ts';
import { REAL_NODE_PLACEMENT } from '../../workbench/src/localcluster/real-node/config.ts';
import { realMiniCluster } from '../harness/real-node.ts';

export type MpiProgramName = 'lj' | 'hns' | 'netpipe';
/** floor: the MPI's launcher in one pod; flux: `flux run` in the MiniCluster; binding_off: with `-o cpu-affinity=off`. */
export type MpiRunKind = 'floor' | 'flux' | 'binding_off';
export type MpiLauncher = 'openmpi' | 'mpich';

export interface MpiProgram {
  name: MpiProgramName;
  image: string;
  launcher: MpiLauncher;
  /** Where it runs (its input's folder), if it matters. */
  workingDir?: string;
  argv: readonly string[];
  /** Ranks whatever the MiniCluster's size (NetPIPE is a ping-pong of two), else one per pod. */
  ranks?: number;
}

/** LAMMPS's 3d Lennard-Jones melt (4,000 atoms, 250 steps), as Debian's lammps-examples has it. */
export const LJ: MpiProgram = {
  name: 'lj',
  image: LAMMPS_OPENMPI_IMAGE,
  launcher: 'openmpi',
  workingDir: `${LAMMPS_EXAMPLES_DIR}/melt`,
  argv: [LAMMPS_PROGRAM, '-in', 'in.melt', '-log', 'none', '-nocite'],
};

/**
 * LAMMPS's ReaxFF HNS case as the Go operator's examples/tests/lammps runs it (its box twice along each
 * axis; its log left out), in an image whose LAMMPS has REAXFF (Debian's has not).
 */
export function hnsProgram(image: string): MpiProgram {
  return {
    name: 'hns',
    image,
    launcher: 'openmpi',
    workingDir: LAMMPS_HNS_DIR,
    argv: [
      LAMMPS_PROGRAM,
      ...['-v', 'x', '2', '-v', 'y', '2', '-v', 'z', '2'],
      '-in',
      'in.reaxc.hns',
      '-log',
      'none',
      '-nocite',
    ],
  };
}

/** NetPIPE on MPICH, bounded at 64 KiB; its file of results in /tmp. */
export const NETPIPE: MpiProgram = {
  name: 'netpipe',
  image: MPICH_IMAGE,
  launcher: 'mpich',
  argv: [NETPIPE_MPICH_PROGRAM, '-u', '65536', '-o', '/tmp/np.out'],
  ranks: 2,
};

/** What asks LAMMPS for its build's styles (ReaxFF's among them, or not). */
export const LAMMPS_HELP: readonly string[] = [LAMMPS_PROGRAM, '-h'];

export function ranksOf(program: MpiProgram, size: number): number {
  return program.ranks ?? size;
}

/**
 * The floor's command: the ranks started by the MPI's own launcher in one pod, as a user of the image
 * would (OpenMPI refuses root without --allow-run-as-root, and more ranks than the node's CPUs without
 * --oversubscribe; MPICH's mpiexec needs neither).
 */
export function floorArgv(program: MpiProgram, ranks: number, nodeCpus: number): string[] {
  if (program.launcher === 'mpich') return ['mpiexec', '-n', String(ranks), ...program.argv];
  return [
    'mpirun',
    '--allow-run-as-root',
    ...(ranks > nodeCpus ? ['--oversubscribe'] : []),
    '-np',
    String(ranks),
    ...program.argv,
  ];
}

/** `flux run` arguments (after `flux`): one rank per pod, with Flux's default binding or with it off. */
export function fluxRunArgs(program: MpiProgram, ranks: number, run: 'flux' | 'binding_off'): string[] {
  return [
    'run',
    '-N',
    String(ranks),
    '-n',
    String(ranks),
    ...(program.workingDir === undefined ? [] : [`--cwd=${program.workingDir}`]),
    ...(run === 'binding_off' ? ['-o', 'cpu-affinity=off'] : []),
    ...program.argv,
  ];
}

/** A command line as one string, for the JSON and the MiniCluster's command (its words are all plain). */
export function commandLine(words: readonly string[]): string {
  for (const word of words) {
    if (!/^[\w./=:-]+$/.test(word))
      throw new Error(`not a plain word for a command line: ${JSON.stringify(word)}`);
  }
  return words.join(' ');
}

/** A plain Pod on the real node running `argv` in the program's image once (no Flux, no operator). */
export function floorPod(
  namespace: string,
  name: string,
  program: MpiProgram,
  argv: readonly string[],
): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/name': 'mpi-bench-floor' } },
    spec: {
      nodeSelector: { ...REAL_NODE_PLACEMENT.nodeSelector },
      tolerations: REAL_NODE_PLACEMENT.tolerations.map((toleration) => ({ ...toleration })),
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'mpi',
          image: program.image,
          imagePullPolicy: 'IfNotPresent',
          command: [...argv],
          ...(program.workingDir === undefined ? {} : { workingDir: program.workingDir }),
        },
      ],
    },
  };
}

/**
 * A v1alpha2 MiniCluster of `size` pods on the real node, Flux from the view (the default). With a
 * program, its command runs the program on one rank per pod and the MiniCluster ends with it; without,
 * it is interactive (brokers up until deleted; jobs come from `flux run`).
 */
export function mpiMiniCluster(
  namespace: string,
  name: string,
  size: number,
  image: string,
  program?: MpiProgram,
): Record<string, unknown> {
  const spec = program === undefined ? { size, interactive: true } : { size, tasks: ranksOf(program, size) };
  const container =
    program?.workingDir === undefined ? {} : { container: { workingDir: program.workingDir } };
  const command = program === undefined ? {} : { command: commandLine(program.argv) };
  return {
    ...realMiniCluster(namespace, name, spec, { image, ...command, ...container }),
    apiVersion: API_VERSION,
  };
}
