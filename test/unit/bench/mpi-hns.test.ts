import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hnsAvailability, hnsCandidates } from '../../bench/mpi-hns.ts';

const REAXFF = 'localhost/lammps:reaxff-bookworm';
const DEBIAN = 'localhost/lammps-openmpi:bookworm';

describe('where HNS can run', () => {
  it("asks the LAMMPS built with REAXFF first when the node has it, then Debian's", () => {
    assert.deepEqual(hnsCandidates(['localhost/mpich:bookworm', DEBIAN]), [DEBIAN]);
    assert.deepEqual(hnsCandidates([DEBIAN, REAXFF]), [REAXFF, DEBIAN]);
  });

  it('is the first image whose lmp has a ReaxFF pair style', () => {
    assert.deepEqual(hnsAvailability([{ image: REAXFF, pairStyles: 60, reaxff: 'reaxff' }]), {
      available: true,
      image: REAXFF,
    });
    assert.deepEqual(
      hnsAvailability([
        { image: REAXFF, pairStyles: 50, reaxff: undefined },
        { image: DEBIAN, pairStyles: 200, reaxff: 'reax/c' },
      ]),
      { available: true, image: DEBIAN },
    );
  });

  it('is unavailable, saying why, when none has', () => {
    assert.deepEqual(hnsAvailability([{ image: DEBIAN, pairStyles: 212, reaxff: undefined }]), {
      available: false,
      reason:
        'the real node has no localhost/lammps:reaxff-bookworm (LAMMPS built with REAXFF); ' +
        "localhost/lammps-openmpi:bookworm's lmp has no ReaxFF pair style (its -h lists 212 pair styles, " +
        "neither reaxff nor reax/c: Debian's lammps is built without REAXFF)",
    });
    assert.deepEqual(
      hnsAvailability([
        { image: REAXFF, pairStyles: 40, reaxff: undefined },
        { image: DEBIAN, pairStyles: 212, reaxff: undefined },
      ]),
      {
        available: false,
        reason:
          "localhost/lammps:reaxff-bookworm's lmp has no ReaxFF pair style (its -h lists 40 pair styles, " +
          "neither reaxff nor reax/c); localhost/lammps-openmpi:bookworm's lmp has no ReaxFF pair style " +
          "(its -h lists 212 pair styles, neither reaxff nor reax/c: Debian's lammps is built without REAXFF)",
      },
    );
  });
});
