import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MpiRunKind } from '../../bench/mpi-programs.ts';
import {
  mpiLine,
  mpiResult,
  type MpiRunContext,
  type MpiSample,
  type StartSample,
} from '../../bench/mpi-result.ts';

const UNAVAILABLE = {
  available: false,
  reason: "localhost/lammps-openmpi:bookworm's lmp has no ReaxFF pair style",
} as const;

const context: MpiRunContext = {
  size: 2,
  rounds: 3,
  machineCpus: 2,
  node: { name: 'real-0', cpus: 2 },
  images: {
    lammps: 'localhost/lammps-openmpi:bookworm',
    mpich: 'localhost/mpich:bookworm',
    fluxView: 'localhost/flux-view:bench-0a1b2c3d4e5f',
  },
  commands: {
    lj: { ranks: 2, floor: 'mpirun lj', flux: 'flux run lj', binding_off: 'flux run -o cpu-affinity=off lj' },
    netpipe: {
      ranks: 2,
      floor: 'mpiexec np',
      flux: 'flux run np',
      binding_off: 'flux run -o cpu-affinity=off np',
    },
  },
  order: ['1 floor lj', '1 floor netpipe'],
  hns: UNAVAILABLE,
};

const lj = (round: number, run: MpiRunKind, seconds: number): MpiSample => ({
  round,
  program: 'lj',
  run,
  figures: { loop_seconds: seconds },
});
const hns = (round: number, run: MpiRunKind, seconds: number): MpiSample => ({
  ...lj(round, run, seconds),
  program: 'hns',
});
const netpipe = (round: number, run: MpiRunKind, latency: number, bandwidth: number): MpiSample => ({
  round,
  program: 'netpipe',
  run,
  figures: { latency_usec: latency, bandwidth_mbps: bandwidth },
});
const start = (
  round: number,
  pod: number,
  status: number,
  miniCluster: number,
  started: number,
  loop: number,
  program: StartSample['program'] = 'lj',
  phases: StartSample['miniClusterPhases'] = {},
): StartSample => ({
  round,
  program,
  podSeconds: pod,
  podStatusSeconds: status,
  miniClusterSeconds: miniCluster,
  miniClusterPodsStartedSeconds: started,
  miniClusterLoopSeconds: loop,
  miniClusterPhases: phases,
});

const samples: MpiSample[] = [
  ...[lj(1, 'floor', 0.3), netpipe(1, 'floor', 1.2, 20000), lj(1, 'flux', 0.33), lj(1, 'binding_off', 0.33)],
  ...[netpipe(1, 'flux', 15.2, 8000), netpipe(1, 'binding_off', 15, 8064)],
  ...[lj(2, 'floor', 0.32), netpipe(2, 'floor', 1.1, 21000), lj(2, 'binding_off', 0.32), lj(2, 'flux', 0.35)],
  ...[netpipe(2, 'binding_off', 15.1, 8200), netpipe(2, 'flux', 16, 8100)],
  ...[lj(3, 'floor', 0.31), netpipe(3, 'floor', 1.3, 19000), lj(3, 'flux', 0.34), lj(3, 'binding_off', 0.36)],
  ...[netpipe(3, 'flux', 15, 7900), netpipe(3, 'binding_off', 14.9, 8100)],
];
// Where each LJ MiniCluster's time went: rc1 in every round, quorum in two, the job's end in one.
const LJ_PHASES = [{ rc1: 2.1, quorum: 2.5 }, { rc1: 2.3, quorum: 2.4, job_end: 3.5 }, { rc1: 2.2 }];
const starts = [
  start(1, 4, 4, 18, 9, 0.35, 'lj', LJ_PHASES[0]),
  start(2, 4.4, 5, 19.5, 9.5, 0.36, 'lj', LJ_PHASES[1]),
  start(3, 4.2, 4, 17, 8.8, 0.34, 'lj', LJ_PHASES[2]),
];

describe('the --mpi result line', () => {
  it('is one JSON line: medians and samples per program and run, slowdowns, targets, apply-to-done', () => {
    const line = mpiLine(samples, starts, context);
    assert.equal(line.endsWith('}\n'), true);
    assert.equal(line.split('\n').length, 2);
    assert.deepEqual(JSON.parse(line), {
      mode: 'mpi',
      size: 2,
      rounds: 3,
      machine_cpus: 2,
      node: { name: 'real-0', cpus: 2 },
      images: {
        lammps: 'localhost/lammps-openmpi:bookworm',
        mpich: 'localhost/mpich:bookworm',
        flux_view: 'localhost/flux-view:bench-0a1b2c3d4e5f',
      },
      commands: context.commands,
      order: ['1 floor lj', '1 floor netpipe'],
      targets: { hns_floor_ratio: 1.1, binding_off_ratio: 1.1, apply_to_done_ratio: 1.2 },
      within_target: { hns_floor: null, binding_off: true, apply_to_done: { lj: false, hns: null } },
      lj: {
        ranks: 2,
        floor: { median_loop_seconds: 0.31, samples: { loop_seconds: [0.3, 0.32, 0.31] } },
        flux: { median_loop_seconds: 0.34, samples: { loop_seconds: [0.33, 0.35, 0.34] } },
        binding_off: { median_loop_seconds: 0.33, samples: { loop_seconds: [0.33, 0.32, 0.36] } },
        floor_ratio: { loop_seconds: 1.1 },
        binding_off_ratio: { loop_seconds: 1.03 },
        binding_off_within_target: true,
      },
      hns: UNAVAILABLE,
      netpipe: {
        ranks: 2,
        floor: {
          median_latency_usec: 1.2,
          median_bandwidth_mbps: 20000,
          samples: { latency_usec: [1.2, 1.1, 1.3], bandwidth_mbps: [20000, 21000, 19000] },
        },
        flux: {
          median_latency_usec: 15.2,
          median_bandwidth_mbps: 8000,
          samples: { latency_usec: [15.2, 16, 15], bandwidth_mbps: [8000, 8100, 7900] },
        },
        binding_off: {
          median_latency_usec: 15,
          median_bandwidth_mbps: 8100,
          samples: { latency_usec: [15, 15.1, 14.9], bandwidth_mbps: [8064, 8200, 8100] },
        },
        // Latency: flux over the other; bandwidth: the other over flux. Both slowdowns.
        floor_ratio: { latency_usec: 12.67, bandwidth_mbps: 2.5 },
        binding_off_ratio: { latency_usec: 1.01, bandwidth_mbps: 1.01 },
        binding_off_within_target: true,
      },
      apply_to_done: {
        lj: {
          pod: { median_seconds: 4.2, samples: { seconds: [4, 4.4, 4.2], status_seconds: [4, 5, 4] } },
          minicluster: {
            median_seconds: 18,
            median_pods_started_seconds: 9,
            median_loop_seconds: 0.35,
            // Each step's median over the rounds that logged it: rc1 of 2.1, 2.2, 2.3; quorum of 2.4, 2.5.
            median_phase_seconds: { rc1: 2.2, quorum: 2.45, job_end: 3.5 },
            samples: {
              seconds: [18, 19.5, 17],
              pods_started_seconds: [9, 9.5, 8.8],
              loop_seconds: [0.35, 0.36, 0.34],
              phases: LJ_PHASES,
            },
          },
          ratio: 4.29, // 18 / 4.2 = 4.2857
          overhead_seconds: 13.8, // 18 - 4.2
          within_target: false,
        },
      },
    });
  });

  it('compares the unrounded ratios with the targets: 1.104 is not within 1.1, 1.2 is within 1.2', () => {
    const result = mpiResult(
      [lj(1, 'floor', 1), lj(1, 'flux', 1.104), lj(1, 'binding_off', 1)],
      [start(1, 10, 10, 12, 5, 1)],
      { ...context, rounds: 1, commands: { lj: context.commands.lj } },
    );
    assert.deepEqual(result.lj?.binding_off_ratio, { loop_seconds: 1.1 });
    assert.equal(result.lj?.binding_off_within_target, false);
    assert.deepEqual(result.within_target, {
      hns_floor: null,
      binding_off: false,
      apply_to_done: { lj: true, hns: null },
    });
    assert.equal(result.apply_to_done.lj.ratio, 1.2); // 12 / 10
    assert.equal(result.apply_to_done.lj.overhead_seconds, 2); // 12 - 10
  });

  it('every run counts for binding off: one program beyond the target misses it', () => {
    const result = mpiResult(
      [
        ...samples.filter((sample) => sample.program === 'lj'),
        netpipe(1, 'flux', 20, 8000),
        netpipe(1, 'binding_off', 15, 8000),
      ],
      starts,
      context,
    );
    assert.equal(result.lj?.binding_off_within_target, true);
    assert.equal(result.netpipe?.binding_off_within_target, false);
    assert.equal(result.within_target.binding_off, false);
  });

  it('with HNS measured: its floor ratio against the target, and its binding off among every run', () => {
    const result = mpiResult(
      [...samples, ...[hns(1, 'floor', 10), hns(1, 'flux', 10.5), hns(1, 'binding_off', 10.4)]],
      starts,
      {
        ...context,
        commands: {
          ...context.commands,
          hns: { ranks: 2, floor: 'mpirun hns', flux: 'flux run hns', binding_off: 'off hns' },
        },
        hns: { available: true, image: 'localhost/lammps:reaxff-bookworm' },
      },
    );
    assert.deepEqual(result.hns, {
      available: true,
      image: 'localhost/lammps:reaxff-bookworm',
      ranks: 2,
      floor: { median_loop_seconds: 10, samples: { loop_seconds: [10] } },
      flux: { median_loop_seconds: 10.5, samples: { loop_seconds: [10.5] } },
      binding_off: { median_loop_seconds: 10.4, samples: { loop_seconds: [10.4] } },
      floor_ratio: { loop_seconds: 1.05 },
      binding_off_ratio: { loop_seconds: 1.01 },
      binding_off_within_target: true,
      floor_within_target: true,
    });
    assert.deepEqual(result.within_target, {
      hns_floor: true,
      binding_off: true,
      apply_to_done: { lj: false, hns: null },
    });
  });

  it("reports apply-to-done per LAMMPS program: HNS's against its own floor pod, with its overhead", () => {
    // Each round: the melt's and HNS's, interleaved as the rounds run them.
    const withHns = [
      start(1, 4, 4, 18, 9, 0.35, 'lj', LJ_PHASES[0]),
      start(1, 40, 40, 46, 10, 30.1, 'hns'),
      start(2, 4.4, 5, 19.5, 9.5, 0.36, 'lj', LJ_PHASES[1]),
      start(2, 41, 41, 47.5, 10.5, 30.4, 'hns'),
      start(3, 4.2, 4, 17, 8.8, 0.34, 'lj', LJ_PHASES[2]),
      start(3, 39, 39, 45, 9.5, 29.8, 'hns'),
    ];
    const result = mpiResult(samples, withHns, {
      ...context,
      hns: { available: true, image: 'localhost/lammps:reaxff-bookworm' },
    });
    assert.deepEqual(result.apply_to_done.lj, mpiResult(samples, starts, context).apply_to_done.lj);
    assert.deepEqual(result.apply_to_done.hns, {
      pod: { median_seconds: 40, samples: { seconds: [40, 41, 39], status_seconds: [40, 41, 39] } },
      minicluster: {
        median_seconds: 46,
        median_pods_started_seconds: 10,
        median_loop_seconds: 30.1,
        median_phase_seconds: {},
        samples: {
          seconds: [46, 47.5, 45],
          pods_started_seconds: [10, 10.5, 9.5],
          loop_seconds: [30.1, 30.4, 29.8],
          phases: [{}, {}, {}],
        },
      },
      ratio: 1.15, // 46 / 40
      overhead_seconds: 6, // 46 - 40
      within_target: true,
    });
    assert.deepEqual(result.within_target.apply_to_done, { lj: false, hns: true });
  });

  it('without HNS: apply-to-done has no hns, and its target is neither met nor missed', () => {
    const result = mpiResult(samples, starts, context);
    assert.deepEqual(Object.keys(result.apply_to_done), ['lj']);
    assert.equal('hns' in result.apply_to_done, false);
    assert.deepEqual(result.within_target.apply_to_done, { lj: false, hns: null });
  });

  it('has no ratio, and misses the target, when the reference is 0', () => {
    const result = mpiResult(
      [lj(1, 'floor', 0), lj(1, 'flux', 0.3), lj(1, 'binding_off', 0)],
      [start(1, 0, 0, 12, 5, 0.3)],
      { ...context, rounds: 1, commands: { lj: context.commands.lj } },
    );
    assert.deepEqual(result.lj?.floor_ratio, { loop_seconds: null });
    assert.deepEqual(result.lj?.binding_off_ratio, { loop_seconds: null });
    assert.equal(result.lj?.binding_off_within_target, false);
    assert.equal(result.apply_to_done.lj.ratio, null);
    assert.equal(result.apply_to_done.lj.overhead_seconds, 12); // 12 - 0
    assert.deepEqual(result.within_target, {
      hns_floor: null,
      binding_off: false,
      apply_to_done: { lj: false, hns: null },
    });
  });
});
