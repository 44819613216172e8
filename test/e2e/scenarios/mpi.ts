// Real MPI programs in MiniClusters on the real node (docs/mpi.md): Debian's LAMMPS on OpenMPI and
// NetPIPE on MPICH, from images without Flux (the view brings it), their ranks across the brokers in
// one MPI_COMM_WORLD. The placement is read from the tasks themselves: each task's CPUs, as the kernel
// lists them, against the CPUs its pod may use. Every call to the cluster or a pod has a timeout.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { API_VERSION } from '../../../src/api/index.ts';
import {
  FLUX_LAMMPS_IMAGE,
  LAMMPS_EXAMPLES_DIR,
  LAMMPS_OPENMPI_IMAGE,
  MPICH_IMAGE,
} from '../../../workbench/src/images/index.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { assertOneStepCleanup } from '../../harness/flux-log.ts';
import { applyMiniCluster, waitForCondition } from '../../harness/operator.ts';
import {
  execIn,
  fluxFromView,
  leadLog,
  podAt,
  realMiniCluster,
  scenario,
  waitForNodesUp,
} from '../../harness/real-node.ts';

/** Debian's lammps-examples: the 3d Lennard-Jones melt, 4,000 atoms, 250 steps. */
const MELT_DIR = `${LAMMPS_EXAMPLES_DIR}/melt`;
const MELT = `${MELT_DIR}/in.melt`;

/** A bash line that prints the CPUs its process may run on (no grep in a plain image). */
const PRINT_ALLOWED_CPUS =
  'while read -r key value; do if [ "$key" = Cpus_allowed_list: ]; then echo "$(uname -n) $value"; fi; done </proc/self/status';

/** A v1alpha2 MiniCluster on the real node, Flux from the view (the v1alpha2 default). */
function mpiMiniCluster(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  container: Record<string, unknown>,
): Record<string, unknown> {
  const { image, command, ...rest } = container as { image: string; command?: string };
  return {
    ...realMiniCluster(namespace, name, spec, {
      image,
      ...(command !== undefined ? { command } : {}),
      container: rest,
    }),
    apiVersion: API_VERSION,
  };
}

/** The CPUs a pod may use, read in the pod as its tasks read theirs. */
async function podCpus(namespace: string, pod: string): Promise<string> {
  const { stdout } = await execIn(namespace, pod, ['bash', '-c', PRINT_ALLOWED_CPUS]);
  return stdout.trim().split(' ')[1] ?? '';
}

/** `host cpus` per task of a `flux run` of PRINT_ALLOWED_CPUS with these options. */
async function taskCpus(namespace: string, lead: string, options: string[]): Promise<string[]> {
  const { stdout } = await fluxFromView(namespace, lead, [
    'run',
    ...options,
    'bash',
    '-c',
    PRINT_ALLOWED_CPUS,
  ]);
  return stdout.trim().split('\n').sort();
}

/** Runs a MiniCluster with a command to its end and returns its lead broker's log. */
async function runToEnd(
  clients: ApiClients,
  namespace: string,
  object: Record<string, unknown>,
): Promise<string> {
  const name = (object.metadata as { name: string }).name;
  await applyMiniCluster(clients, object);
  await waitForCondition(clients, namespace, name, 'Succeeded', 'True', 300_000);
  return leadLog(clients, namespace, name);
}

/** LAMMPS' last timing line: `Loop time of 0.3 on 2 procs for 250 steps with 4000 atoms`. */
function loopLine(log: string): { seconds: number; procs: number; steps: number } {
  const match = [...log.matchAll(/Loop time of ([\d.e+-]+) on (\d+) procs for (\d+) steps/g)].at(-1);
  assert.ok(match, `LAMMPS printed its loop time:\n${log}`);
  return { seconds: Number(match[1]), procs: Number(match[2]), steps: Number(match[3]) };
}

/** How many ranks LAMMPS' processor grid has (`1 by 1 by 2 MPI processor grid`). */
function gridRanks(log: string): number {
  const match = /(\d+) by (\d+) by (\d+) MPI processor grid/.exec(log);
  assert.ok(match, `LAMMPS printed its processor grid:\n${log}`);
  return Number(match[1]) * Number(match[2]) * Number(match[3]);
}

async function lammpsOn(t: TestContext, brokers: number): Promise<void> {
  const { namespace, clients } = await scenario(t, `lammps-${brokers}`);
  const log = await runToEnd(
    clients,
    namespace,
    mpiMiniCluster(
      namespace,
      'lammps',
      { size: brokers, tasks: brokers },
      { image: LAMMPS_OPENMPI_IMAGE, command: `lmp -in ${MELT} -log none -nocite`, workingDir: MELT_DIR },
    ),
  );
  const loop = loopLine(log);
  assert.equal(loop.procs, brokers);
  assert.equal(loop.steps, 250);
  // One MPI_COMM_WORLD: the processor grid spans every rank.
  assert.equal(gridRanks(log), brokers);
  assertOneStepCleanup(log);
  t.diagnostic(`LAMMPS melt on ${brokers} brokers: loop time ${loop.seconds} s`);
}

export function mpiScenarios(): void {
  describe('MPI', { concurrency: 1 }, () => {
    it('LAMMPS (OpenMPI) from the view on 2 brokers: one MPI_COMM_WORLD, the log says on 2 procs', async (t) => {
      await lammpsOn(t, 2);
    });

    it('LAMMPS (OpenMPI) from the view on 4 brokers: the log says on 4 procs', async (t) => {
      await lammpsOn(t, 4);
    });

    it('LAMMPS from v1alpha1 on a Flux image (Flux in the image, brokers as the flux user) on 2 brokers', async (t) => {
      const { namespace, clients } = await scenario(t, 'lammps-v1alpha1');
      const log = await runToEnd(
        clients,
        namespace,
        realMiniCluster(
          namespace,
          'lammps',
          { size: 2, tasks: 2 },
          {
            image: FLUX_LAMMPS_IMAGE,
            command: `lmp -in ${MELT} -log none -nocite`,
            container: { workingDir: MELT_DIR },
          },
        ),
      );
      const loop = loopLine(log);
      assert.equal(loop.procs, 2);
      assert.equal(gridRanks(log), 2);
      assert.match(log, /placement: CPUs \S+ may be shared with other pods/);
      t.diagnostic(`LAMMPS melt from v1alpha1 on 2 brokers: loop time ${loop.seconds} s`);
    });

    it('placement: R lists the cores each pod may use; tasks are bound only when the job asks', async (t) => {
      const { namespace, clients } = await scenario(t, 'mpi-place');
      await applyMiniCluster(
        clients,
        mpiMiniCluster(namespace, 'place', { size: 2, interactive: true }, { image: LAMMPS_OPENMPI_IMAGE }),
      );
      await waitForCondition(clients, namespace, 'place', 'Ready', 'True', 240_000);
      const lead = (await podAt(clients, namespace, 'place')).metadata?.name ?? '';
      const worker = (await podAt(clients, namespace, 'place', 1)).metadata?.name ?? '';
      await waitForNodesUp(namespace, lead, 2, 120_000, fluxFromView);
      const cpus = await podCpus(namespace, lead);
      assert.equal(await podCpus(namespace, worker), cpus, 'both pods share the node and its CPUs');
      const count = cpus
        .split(',')
        .map((range) => range.split('-').map(Number))
        .reduce((sum, [first = 0, last = first]) => sum + last - first + 1, 0);

      // /dev/shm: memory of the pod's own, 1 GiB by default (spec.pod.shmSize), not the runtime's 64 MiB.
      const { stdout: shm } = await execIn(namespace, lead, ['df', '-k', '--output=fstype,size', '/dev/shm']);
      assert.match(shm, /^tmpfs\s+1048576$/m, shm);

      // R: every broker lists the cores its pod may use.
      const { stdout: cores } = await fluxFromView(namespace, lead, [
        'resource',
        'list',
        '--no-header',
        '-o',
        '{ncores}',
      ]);
      assert.equal(Number(cores.trim().split('\n')[0]), 2 * count, cores);

      // By default a task may run on every CPU of its pod, never on one core that another broker's task shares.
      const tasks = 2 * count;
      const unbound = await taskCpus(namespace, lead, ['-N2', `-n${tasks}`]);
      assert.equal(unbound.length, tasks, unbound.join('\n'));
      for (const line of unbound) assert.equal(line.split(' ')[1], cpus, unbound.join('\n'));

      // Flux's rc files still run beside the instance's initrc: openmpi.lua gives each job a
      // shared-memory folder of its own, the job's temporary folder.
      const { stdout: backing } = await fluxFromView(namespace, lead, [
        'run',
        '-N1',
        '-n1',
        'bash',
        '-c',
        'echo "$OMPI_MCA_btl_vader_backing_directory $FLUX_JOB_TMPDIR"',
      ]);
      const [vader = '', jobTmp] = backing.trim().split(' ');
      assert.match(vader, /\/jobtmp-0-\S+$/, backing);
      assert.equal(vader, jobTmp, backing);

      // Asked for, binding is Flux's: each task of a broker on a core of its own.
      const bound = await taskCpus(namespace, lead, ['-N1', `-n${count}`, '-o', 'cpu-affinity=per-task']);
      const boundCpus = bound.map((line) => line.split(' ')[1]);
      assert.equal(new Set(boundCpus).size, count, bound.join('\n'));
      for (const cpu of boundCpus) assert.match(cpu ?? '', /^\d+$/, bound.join('\n'));

      // Flux's Python ran in both pods (rc1, the jobs above) from the view's own byte code: the copy
      // changes the sources' times, so byte code checked against them was compiled again in every pod.
      for (const pod of [lead, worker]) {
        const { stdout: compiled } = await execIn(namespace, pod, [
          'find',
          '/mnt/flux/view',
          '-name',
          '*.pyc',
          '-newer',
          '/mnt/flux/view.complete',
        ]);
        assert.equal(compiled, '', `byte code compiled in ${pod}:\n${compiled}`);
      }
    });

    it('two MPI jobs at once on one broker: each its own OpenMPI shared memory', async (t) => {
      const { namespace, clients } = await scenario(t, 'mpi-two');
      // 4 cores in R on a node of 2: two jobs of 2 ranks each fit on the one broker at once.
      await applyMiniCluster(
        clients,
        mpiMiniCluster(
          namespace,
          'two',
          { size: 1, interactive: true },
          { image: LAMMPS_OPENMPI_IMAGE, cores: 4 },
        ),
      );
      await waitForCondition(clients, namespace, 'two', 'Ready', 'True', 240_000);
      const lead = (await podAt(clients, namespace, 'two')).metadata?.name ?? '';
      await waitForNodesUp(namespace, lead, 1, 120_000, fluxFromView);
      // The melt, then 1,000 steps more: seconds long, so the two jobs overlap.
      await execIn(namespace, lead, ['bash', '-c', `printf 'include ${MELT}\\nrun 1000\\n' >/tmp/in.long`]);
      const submit = async () =>
        (
          await fluxFromView(namespace, lead, [
            'submit',
            '-N1',
            '-n2',
            `--cwd=${MELT_DIR}`,
            'lmp',
            '-in',
            '/tmp/in.long',
            '-log',
            'none',
            '-nocite',
          ])
        ).stdout.trim();
      const ids = [await submit(), await submit()];
      for (const id of ids) {
        const { stdout } = await fluxFromView(namespace, lead, ['job', 'attach', id]);
        const loop = loopLine(stdout);
        assert.equal(loop.procs, 2);
        assert.equal(loop.steps, 1000);
      }
      // They ran at once: each started before the other ended.
      const { stdout: times } = await fluxFromView(namespace, lead, [
        'jobs',
        '-a',
        '--no-header',
        '-o',
        '{t_run} {t_cleanup}',
      ]);
      const spans = times
        .trim()
        .split('\n')
        .map((line) => line.trim().split(/\s+/).map(Number));
      assert.equal(spans.length, 2, times);
      const [[run1 = 0, end1 = 0] = [], [run2 = 0, end2 = 0] = []] = spans;
      assert.ok(run1 < end2 && run2 < end1, `the two jobs overlapped: ${times}`);
    });

    it('NetPIPE (MPICH) from the view across 2 brokers', async (t) => {
      const { namespace, clients } = await scenario(t, 'netpipe');
      const log = await runToEnd(
        clients,
        namespace,
        mpiMiniCluster(
          namespace,
          'netpipe',
          { size: 2, tasks: 2 },
          { image: MPICH_IMAGE, command: 'NPmpich2 -u 65536 -o /tmp/np.out' },
        ),
      );
      // NetPIPE's rows: `  0:       1 bytes   1234 times -->      0.50 Mbps in      15.20 usec`.
      const rows = [
        ...log.matchAll(/^\s*\d+:\s+(\d+) bytes\s+\d+ times -->\s+([\d.]+) Mbps in\s+([\d.]+) usec/gm),
      ];
      assert.ok(rows.length > 0, `NetPIPE printed its rows:\n${log}`);
      const first = rows[0];
      assert.equal(first?.[1], '1');
      const largest = rows.at(-1);
      t.diagnostic(
        `NetPIPE across 2 brokers: 1 byte ${first?.[3]} us; ${largest?.[1]} bytes ${largest?.[2]} Mbps`,
      );
    });
  });
}
