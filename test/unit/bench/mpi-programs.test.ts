import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LJ,
  NETPIPE,
  commandLine,
  floorArgv,
  floorPod,
  fluxRunArgs,
  hnsProgram,
  mpiMiniCluster,
  ranksOf,
} from '../../bench/mpi-programs.ts';

const PLACEMENT = {
  nodeSelector: { 'sim.flux-framework.org/real': 'true' },
  tolerations: [
    { key: 'sim.flux-framework.org/real', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
  ],
};

describe('the floor: the ranks by the MPI launcher in one pod', () => {
  it("runs LAMMPS by OpenMPI's mpirun as root, oversubscribing only beyond the node's CPUs", () => {
    assert.deepEqual(floorArgv(LJ, 2, 2), [
      ...['mpirun', '--allow-run-as-root', '-np', '2'],
      ...['lmp', '-in', 'in.melt', '-log', 'none', '-nocite'],
    ]);
    assert.deepEqual(floorArgv(LJ, 4, 2).slice(0, 5), [
      'mpirun',
      '--allow-run-as-root',
      '--oversubscribe',
      '-np',
      '4',
    ]);
  });

  it("runs NetPIPE by MPICH's mpiexec on its 2 ranks whatever the size", () => {
    assert.equal(ranksOf(NETPIPE, 4), 2);
    assert.equal(ranksOf(LJ, 4), 4);
    assert.deepEqual(floorArgv(NETPIPE, ranksOf(NETPIPE, 4), 2), [
      ...['mpiexec', '-n', '2'],
      ...['NPmpich2', '-u', '65536', '-o', '/tmp/np.out'],
    ]);
  });

  it('is a plain pod on the real node, run once, in the input folder', () => {
    assert.deepEqual(floorPod('bench-mpi-x', 'floor-lj-1', LJ, floorArgv(LJ, 2, 2)), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'floor-lj-1',
        namespace: 'bench-mpi-x',
        labels: { 'app.kubernetes.io/name': 'mpi-bench-floor' },
      },
      spec: {
        ...PLACEMENT,
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 0,
        containers: [
          {
            name: 'mpi',
            image: 'localhost/lammps-openmpi:bookworm',
            imagePullPolicy: 'IfNotPresent',
            command: [
              'mpirun',
              '--allow-run-as-root',
              '-np',
              '2',
              'lmp',
              '-in',
              'in.melt',
              '-log',
              'none',
              '-nocite',
            ],
            workingDir: '/usr/share/lammps/examples/melt',
          },
        ],
      },
    });
    const netpipe = floorPod('ns', 'floor-netpipe-1', NETPIPE, ['mpiexec']);
    assert.equal(netpipe.spec?.containers[0]?.image, 'localhost/mpich:bookworm');
    assert.equal(netpipe.spec?.containers[0]?.workingDir, undefined);
  });
});

describe('flux run in the MiniCluster', () => {
  it('runs one rank per pod, in the input folder, with binding off only when asked', () => {
    assert.deepEqual(fluxRunArgs(LJ, 2, 'flux'), [
      ...['run', '-N', '2', '-n', '2', '--cwd=/usr/share/lammps/examples/melt'],
      ...['lmp', '-in', 'in.melt', '-log', 'none', '-nocite'],
    ]);
    assert.deepEqual(fluxRunArgs(NETPIPE, 2, 'binding_off'), [
      ...['run', '-N', '2', '-n', '2', '-o', 'cpu-affinity=off'],
      ...['NPmpich2', '-u', '65536', '-o', '/tmp/np.out'],
    ]);
    assert.deepEqual(fluxRunArgs(hnsProgram('localhost/lammps:reaxff-bookworm'), 4, 'flux'), [
      ...['run', '-N', '4', '-n', '4', '--cwd=/usr/share/lammps/examples/reaxff/HNS'],
      ...[
        'lmp',
        '-v',
        'x',
        '2',
        '-v',
        'y',
        '2',
        '-v',
        'z',
        '2',
        '-in',
        'in.reaxc.hns',
        '-log',
        'none',
        '-nocite',
      ],
    ]);
  });
});

describe('the MiniClusters', () => {
  it('with a program: v1alpha2 on the real node, Flux from the view, the program on one rank per pod', () => {
    assert.deepEqual(mpiMiniCluster('ns', 'lj-done', 2, LJ.image, LJ), {
      apiVersion: 'flux-framework.org/v1alpha2',
      kind: 'MiniCluster',
      metadata: { name: 'lj-done', namespace: 'ns' },
      spec: {
        size: 2,
        tasks: 2,
        containers: [
          {
            image: 'localhost/lammps-openmpi:bookworm',
            command: 'lmp -in in.melt -log none -nocite',
            workingDir: '/usr/share/lammps/examples/melt',
          },
        ],
        pod: PLACEMENT,
      },
    });
  });

  it('without: interactive, the image alone', () => {
    assert.deepEqual(mpiMiniCluster('ns', 'netpipe', 3, NETPIPE.image), {
      apiVersion: 'flux-framework.org/v1alpha2',
      kind: 'MiniCluster',
      metadata: { name: 'netpipe', namespace: 'ns' },
      spec: {
        size: 3,
        interactive: true,
        containers: [{ image: 'localhost/mpich:bookworm' }],
        pod: PLACEMENT,
      },
    });
  });

  it('refuses a command word that is not plain', () => {
    assert.equal(
      commandLine(['lmp', '-in', 'in.melt', '--cwd=/a/b', '-o', 'cpu-affinity=off']),
      'lmp -in in.melt --cwd=/a/b -o cpu-affinity=off',
    );
    assert.throws(() => commandLine(['echo', 'a b']), /^Error: not a plain word for a command line: "a b"$/);
    assert.throws(() => commandLine(['echo', '$HOME']), /not a plain word/);
  });
});
