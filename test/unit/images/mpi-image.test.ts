import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEBIAN_IMAGE_FIXES,
  LAMMPS_EXAMPLES_DIR,
  LAMMPS_OPENMPI_IMAGE,
  MPICH_IMAGE,
  MPI_FIXES,
  MPI_IMAGE_NAMES,
  mpiImageArgs,
  mpiImageHistory,
  mpiImageKey,
  mpiImageRecipe,
} from '../../../workbench/src/images/index.ts';
import type { MpiImageRecipe } from '../../../workbench/src/images/index.ts';
import { BASH_IMAGE_CONFIG, BOOKWORM_MIRRORS, assertDistinctKeys } from './fixtures.ts';

describe('mpiImageRecipe', () => {
  it('names the two images e2e tests use, and where LAMMPS keeps its examples', () => {
    assert.deepEqual(MPI_IMAGE_NAMES, ['lammps-openmpi', 'mpich']);
    assert.equal(LAMMPS_OPENMPI_IMAGE, 'localhost/lammps-openmpi:bookworm');
    assert.equal(MPICH_IMAGE, 'localhost/mpich:bookworm');
    assert.equal(LAMMPS_EXAMPLES_DIR, '/usr/share/lammps/examples');
  });

  it('LAMMPS on OpenMPI with its examples, from Debian 12, running bash as root', () => {
    assert.deepEqual(mpiImageRecipe('lammps-openmpi'), {
      revision: 1,
      name: 'lammps-openmpi',
      reference: 'localhost/lammps-openmpi:bookworm',
      suite: 'bookworm',
      mirrors: BOOKWORM_MIRRORS,
      packages: ['lammps', 'lammps-examples', 'openmpi-bin'],
      sourceDateEpoch: 1_735_689_600,
      config: BASH_IMAGE_CONFIG,
    });
  });

  it('MPICH with NetPIPE, from Debian 12, running bash as root', () => {
    assert.deepEqual(mpiImageRecipe('mpich'), {
      revision: 1,
      name: 'mpich',
      reference: 'localhost/mpich:bookworm',
      suite: 'bookworm',
      mirrors: BOOKWORM_MIRRORS,
      packages: ['mpich', 'netpipe-mpich2'],
      sourceDateEpoch: 1_735_689_600,
      config: BASH_IMAGE_CONFIG,
    });
  });
});

describe('mpiImageArgs', () => {
  it('installs the packages (maintainer scripts run) on the essential set into a folder, /usr merged, slim', () => {
    assert.deepEqual(mpiImageArgs(mpiImageRecipe('mpich'), '/cache/images/work/rootfs'), [
      '--variant=essential',
      '--mode=root',
      '--format=directory',
      '--architectures=amd64',
      '--include=mpich,netpipe-mpich2',
      '--dpkgopt=path-exclude=/usr/share/man/*',
      '--dpkgopt=path-exclude=/usr/share/info/*',
      '--dpkgopt=path-exclude=/usr/share/doc/*',
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      '--dpkgopt=path-exclude=/usr/share/locale/*',
      '--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr',
      'bookworm',
      '/cache/images/work/rootfs',
      ...BOOKWORM_MIRRORS,
    ]);
  });

  it('includes the packages sorted, whatever their order in the recipe', () => {
    const recipe = mpiImageRecipe('lammps-openmpi');
    recipe.packages = ['openmpi-bin', 'lammps-examples', 'lammps'];
    assert.equal(mpiImageArgs(recipe, '/out')[4], '--include=lammps,lammps-examples,openmpi-bin');
    assert.equal(
      mpiImageHistory(recipe),
      'mmdebstrap --variant=essential bookworm lammps lammps-examples openmpi-bin',
    );
  });

  it('refuses an output path mmdebstrap cannot take', () => {
    assert.throws(
      () => mpiImageArgs(mpiImageRecipe('mpich'), 'relative/out'),
      /output must be an absolute path without spaces: relative\/out/,
    );
    assert.throws(() => mpiImageArgs(mpiImageRecipe('mpich'), '/a b'), /output must be an absolute path/);
  });

  it("gets the Debian images' fixes, users and groups as base-passwd made them", () => {
    assert.equal(MPI_FIXES, DEBIAN_IMAGE_FIXES);
  });
});

describe('mpiImageKey', () => {
  it('differs per image and changes with the packages, a mirror or the revision', () => {
    assertDistinctKeys<MpiImageRecipe>(
      mpiImageKey,
      () => mpiImageRecipe('lammps-openmpi'),
      [mpiImageRecipe('mpich')],
      [(r) => r.packages.push('hwloc'), (r) => r.mirrors.pop(), (r) => (r.revision += 1)],
    );
  });
});
