import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LJ, NETPIPE, hnsProgram } from '../../bench/mpi-programs.ts';
import { applyToDonePrograms, bindingOrder, figuresOf, programsByImage } from '../../bench/mpi-rounds.ts';

describe('a round of --mpi', () => {
  it("takes turns at which of Flux's default binding and binding off runs first", () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((round) => bindingOrder(round)),
      [
        ['flux', 'binding_off'],
        ['binding_off', 'flux'],
        ['flux', 'binding_off'],
        ['binding_off', 'flux'],
      ],
    );
  });

  it('measures HNS only when an image has ReaxFF; the programs of one image share a MiniCluster', () => {
    assert.deepEqual(programsByImage({ available: false, reason: 'no ReaxFF' }), [[LJ], [NETPIPE]]);
    const reaxff = hnsProgram('localhost/lammps:reaxff-bookworm');
    assert.deepEqual(programsByImage({ available: true, image: 'localhost/lammps:reaxff-bookworm' }), [
      [LJ],
      [reaxff],
      [NETPIPE],
    ]);
    const debian = hnsProgram('localhost/lammps-openmpi:bookworm');
    assert.deepEqual(programsByImage({ available: true, image: 'localhost/lammps-openmpi:bookworm' }), [
      [LJ, debian],
      [NETPIPE],
    ]);
  });

  it('measures apply-to-done for every LAMMPS program that runs: the melt, then HNS when it runs', () => {
    assert.deepEqual(applyToDonePrograms({ available: false, reason: 'no ReaxFF' }), [LJ]);
    for (const image of ['localhost/lammps:reaxff-bookworm', 'localhost/lammps-openmpi:bookworm']) {
      assert.deepEqual(applyToDonePrograms({ available: true, image }), [LJ, hnsProgram(image)]);
    }
  });

  it("reads LAMMPS's loop time and NetPIPE's latency and bandwidth", () => {
    assert.deepEqual(figuresOf(LJ, 'Loop time of 3.49 on 2 procs for 250 steps with 4000 atoms\n'), {
      loop_seconds: 3.49,
    });
    assert.deepEqual(
      figuresOf(
        NETPIPE,
        '  0:       1 bytes      7 times -->      0.00 Mbps in    3999.00 usec\n' +
          ' 64:   65536 bytes     20 times -->     25.00 Mbps in   20000.00 usec\n',
      ),
      { latency_usec: 3999, bandwidth_mbps: 25 },
    );
  });
});
