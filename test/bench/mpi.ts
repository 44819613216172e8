/**
 * `npm run bench -- --mpi [--size N] [--rounds R] [--timeout-seconds N]`: real MPI programs in
 * MiniClusters against the same ranks without Flux (issue 30, part 5), on the local cluster's real node,
 * in one run. LAMMPS's Lennard-Jones melt on OpenMPI on N ranks (one per pod, default 2), ReaxFF HNS when
 * an image's LAMMPS has ReaxFF (mpi-hns.ts: the LAMMPS built with REAXFF when the node has its image;
 * Debian's has none: otherwise `hns` says so and why), and NetPIPE on MPICH (2 ranks, `NPmpich2 -u
 * 65536`), each run (mpi-rounds.ts):
 *   floor:        by `mpirun` / `mpiexec` inside ONE plain pod (no Flux, no operator);
 *   flux:         by `flux run` in a MiniCluster of N pods (v1alpha2, Flux from the view), Flux's
 *                 default binding;
 *   binding_off:  the same with `-o cpu-affinity=off`;
 * and, per LAMMPS program (the melt; HNS when it runs), the apply-to-done of a MiniCluster whose command
 * is the program against its floor pod's own start-to-done. Figures: LAMMPS's loop time (s), NetPIPE's
 * 1-byte latency (us) and bandwidth at its largest size (Mbps). Prints one JSON line (mpi-result.ts): per
 * program and run the medians over `--rounds` (default 3) and every sample, the slowdowns against the
 * floor and against binding off, per LAMMPS program the apply-to-done's ratio and overhead (seconds over
 * the pod's), and issue 30's targets as `within_target` booleans (HNS within 1.1x of the floor, every run
 * within 1.1x of binding off, apply-to-done within 1.2x of the pod's, reported per LAMMPS program).
 * Nothing asserts a ratio.
 *
 * The operator runs compiled in a process of its own (mpi-operator.ts), its Flux view this tree's,
 * pinned on the node under a tag of the run's own (view-image.ts). Everything runs in one namespace of
 * its own, deleted at the end, failure and Ctrl-C included; the run's tag goes too.
 */
import { availableParallelism, constants } from 'node:os';
import { LAMMPS_OPENMPI_IMAGE, MPICH_IMAGE } from '../../workbench/src/images/index.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { REAL_NODE_NAME } from '../../workbench/src/localcluster/real-node/config.ts';
import { deleteNamespace, waitFor } from '../harness/cluster.ts';
import { startOperatorProcess, type OperatorProcess } from './mpi-operator.ts';
import { MPI_USAGE, parseMpiOptions, type MpiOptions } from './mpi-options.ts';
import { commandLine, floorArgv, fluxRunArgs, ranksOf } from './mpi-programs.ts';
import { mpiLine, type HnsAvailability, type MpiRunContext } from './mpi-result.ts';
import { probeHns } from './mpi-hns.ts';
import { measureRounds, programsByImage, type RoundsTarget } from './mpi-rounds.ts';
import { startRealNodeBench } from './real-node-bench.ts';

const NAMESPACE_GONE_MS = 180_000;

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** The bench's namespace, once pods can be made in it (its default ServiceAccount exists). */
async function createNamespace(clients: ApiClients, name: string): Promise<void> {
  await clients.core.createNamespace({ body: { metadata: { name } } });
  await waitFor(() => clients.core.readNamespacedServiceAccount({ name: 'default', namespace: name }), {
    what: `the default ServiceAccount of ${name}`,
    timeoutMs: 60_000,
  });
}

/** The real node's CPUs and the names of the images it holds. */
async function realNode(clients: ApiClients): Promise<{ cpus: number; images: string[] }> {
  const node = await clients.core.readNode({ name: REAL_NODE_NAME });
  const cpus = Number(node.status?.capacity?.cpu);
  if (!Number.isInteger(cpus) || cpus < 1) {
    throw new Error(
      `node ${REAL_NODE_NAME} has no whole CPU capacity: ${String(node.status?.capacity?.cpu)}`,
    );
  }
  return { cpus, images: (node.status?.images ?? []).flatMap((image) => image.names ?? []) };
}

/** Each program's ranks and the command line of each kind of run. */
function commands(options: MpiOptions, cpus: number, hns: HnsAvailability): MpiRunContext['commands'] {
  return Object.fromEntries(
    programsByImage(hns)
      .flat()
      .map((program) => {
        const ranks = ranksOf(program, options.size);
        const flux = (run: 'flux' | 'binding_off') => `flux ${commandLine(fluxRunArgs(program, ranks, run))}`;
        return [
          program.name,
          {
            ranks,
            floor: commandLine(floorArgv(program, ranks, cpus)),
            flux: flux('flux'),
            binding_off: flux('binding_off'),
          },
        ];
      }),
  );
}

export async function mpiBench(argv: readonly string[]): Promise<void> {
  const start = await startRealNodeBench(argv, parseMpiOptions, MPI_USAGE, progress);
  if (!start) return;
  const { options, kubeconfig, clients, pinned } = start;
  const namespace = `bench-mpi-${Date.now().toString(36)}`;
  // Ctrl-C or SIGTERM ends the measurement; the cleanup below still runs.
  const abort = new AbortController();
  const interrupt = (signal: NodeJS.Signals) => abort.abort(signal);
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  let operator: OperatorProcess | undefined;
  try {
    await createNamespace(clients, namespace);
    const { cpus, images } = await realNode(clients);
    operator = await startOperatorProcess(kubeconfig, namespace, pinned.reference);
    const target: RoundsTarget = {
      clients,
      namespace,
      size: options.size,
      nodeCpus: cpus,
      timeoutMs: options.timeoutSeconds * 1000,
      signal: abort.signal,
      progress,
    };
    progress(
      `${options.rounds} rounds, MiniClusters of ${options.size} pods in ${namespace} on ${REAL_NODE_NAME} ` +
        `(${cpus} CPUs), the view from ${pinned.reference} (${pinned.imageId})`,
    );
    const hns = await probeHns(target, images);
    if (!hns.available) progress(`hns: ${hns.reason}`);
    const measured = await measureRounds(target, options.rounds, hns);
    process.stdout.write(
      mpiLine(measured.samples, measured.starts, {
        size: options.size,
        rounds: options.rounds,
        machineCpus: availableParallelism(),
        node: { name: REAL_NODE_NAME, cpus },
        images: { lammps: LAMMPS_OPENMPI_IMAGE, mpich: MPICH_IMAGE, fluxView: pinned.reference },
        commands: commands(options, cpus, hns),
        order: measured.order,
        hns,
      }),
    );
  } catch (error) {
    const signal = abort.signal.aborted ? (abort.signal.reason as NodeJS.Signals) : undefined;
    if (signal === undefined) {
      const said = operator?.complaints() ?? '';
      if (said !== '') progress(`the operator's warnings and errors:\n${said}`);
      throw error;
    }
    // Said in one line, with the shell's status for the signal; the cleanup below still runs.
    progress(`interrupted (${signal}): no result; cleaning up`);
    process.exitCode = 128 + constants.signals[signal];
  } finally {
    const cleanUp = async (what: string, work: () => Promise<unknown> | undefined) => {
      await Promise.resolve(work()).catch((error: unknown) =>
        progress(`cleanup (${what}): ${String(error)}`),
      );
    };
    await cleanUp('the operator', () => operator?.stop());
    await cleanUp(`namespace ${namespace}`, () => deleteNamespace(namespace, NAMESPACE_GONE_MS));
    await cleanUp(`the tag ${pinned.reference}`, () => pinned.unpin());
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
