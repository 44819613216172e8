import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEBIAN_IMAGE_FIXES,
  LAMMPS_EXAMPLES_KEPT,
  LAMMPS_FIXES,
  LAMMPS_HNS_DIR,
  LAMMPS_IMAGE_PACKAGES,
  LAMMPS_REAXFF_IMAGE,
  LAMMPS_REAXFF_PROGRAM,
  examplesFilters,
  lammpsImageArgs,
  lammpsImageHistory,
  lammpsImageKey,
  lammpsImageRecipe,
} from '../../../workbench/src/images/index.ts';
import type { LammpsImageRecipe } from '../../../workbench/src/images/index.ts';
import { BASH_IMAGE_CONFIG, BOOKWORM_MIRRORS, assertDistinctKeys } from './fixtures.ts';

/** sha256 of the text `script`. */
const SCRIPT_SHA = '21a0270b7f66a1e4c25933f13a1e5a1bbb4757578072930c8189131f9c6aaae1';

describe('lammpsImageRecipe', () => {
  it('names the image, its lmp and the Go suite working directory', () => {
    assert.equal(LAMMPS_REAXFF_IMAGE, 'localhost/lammps:reaxff-bookworm');
    assert.equal(LAMMPS_REAXFF_PROGRAM, '/usr/local/bin/lmp');
    assert.equal(LAMMPS_HNS_DIR, '/usr/share/lammps/examples/reaxff/HNS');
    assert.deepEqual(LAMMPS_IMAGE_PACKAGES, ['lammps-examples', 'libopenmpi3', 'libstdc++6', 'openmpi-bin']);
    assert.deepEqual(LAMMPS_EXAMPLES_KEPT, ['melt', 'reaxff']);
  });

  it("is Debian 12's OpenMPI and examples with the build script's digest, running bash as root", () => {
    assert.deepEqual(lammpsImageRecipe('script'), {
      revision: 1,
      reference: 'localhost/lammps:reaxff-bookworm',
      suite: 'bookworm',
      mirrors: BOOKWORM_MIRRORS,
      packages: ['lammps-examples', 'libopenmpi3', 'libstdc++6', 'openmpi-bin'],
      examples: ['melt', 'reaxff'],
      buildScript: SCRIPT_SHA,
      sourceDateEpoch: 1_735_689_600,
      config: BASH_IMAGE_CONFIG,
    });
  });
});

describe('lammpsImageArgs', () => {
  it('installs the packages on the essential set, keeps two example folders, then copies LAMMPS in', () => {
    const args = lammpsImageArgs(lammpsImageRecipe('script'), {
      lammpsRoot: '/cache/lammps/20220106.git7586adbb6a+ds1-2-14cd7a020e7c/root',
      output: '/cache/images/work/rootfs',
    });
    assert.deepEqual(args, [
      '--variant=essential',
      '--mode=root',
      '--format=directory',
      '--architectures=amd64',
      '--include=lammps-examples,libopenmpi3,libstdc++6,openmpi-bin',
      '--dpkgopt=path-exclude=/usr/share/man/*',
      '--dpkgopt=path-exclude=/usr/share/info/*',
      '--dpkgopt=path-exclude=/usr/share/doc/*',
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      '--dpkgopt=path-exclude=/usr/share/locale/*',
      '--dpkgopt=path-exclude=/usr/share/lammps/examples/*',
      '--dpkgopt=path-include=/usr/share/lammps/examples/melt/*',
      '--dpkgopt=path-include=/usr/share/lammps/examples/reaxff/*',
      '--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr',
      '--customize-hook=sync-in /cache/lammps/20220106.git7586adbb6a+ds1-2-14cd7a020e7c/root /',
      'bookworm',
      '/cache/images/work/rootfs',
      ...BOOKWORM_MIRRORS,
    ]);
  });

  it('sorts the packages and example folders, whatever their order in the recipe', () => {
    const recipe = lammpsImageRecipe('script');
    recipe.packages = ['openmpi-bin', 'libopenmpi3', 'lammps-examples'];
    recipe.examples = ['reaxff', 'crack', 'melt'];
    const args = lammpsImageArgs(recipe, { lammpsRoot: '/l', output: '/o' });
    assert.equal(args[4], '--include=lammps-examples,libopenmpi3,openmpi-bin');
    assert.deepEqual(args.slice(10, 14), [
      '--dpkgopt=path-exclude=/usr/share/lammps/examples/*',
      '--dpkgopt=path-include=/usr/share/lammps/examples/crack/*',
      '--dpkgopt=path-include=/usr/share/lammps/examples/melt/*',
      '--dpkgopt=path-include=/usr/share/lammps/examples/reaxff/*',
    ]);
    assert.equal(
      lammpsImageHistory(recipe, '20220106.git7586adbb6a+ds1-2-14cd7a020e7c'),
      'mmdebstrap --variant=essential bookworm lammps-examples libopenmpi3 openmpi-bin ' +
        '(examples: crack, melt, reaxff) + LAMMPS with REAXFF (20220106.git7586adbb6a+ds1-2-14cd7a020e7c) ' +
        'at /usr/local/bin/lmp',
    );
  });

  it('refuses paths mmdebstrap hooks cannot take and example names that are not plain', () => {
    const recipe = lammpsImageRecipe('script');
    assert.throws(
      () => lammpsImageArgs(recipe, { lammpsRoot: '/a b', output: '/o' }),
      /lammpsRoot must be an absolute path without spaces: \/a b/,
    );
    assert.throws(
      () => lammpsImageArgs(recipe, { lammpsRoot: '/l', output: 'relative' }),
      /output must be an absolute path without spaces: relative/,
    );
    assert.throws(
      () => examplesFilters(['reaxff/HNS']),
      /an example folder is a plain name, not reaxff\/HNS/,
    );
    assert.throws(() => examplesFilters(['*']), /not \*/);
  });

  it("gets the Debian images' fixes, users and groups as base-passwd made them", () => {
    assert.equal(LAMMPS_FIXES, DEBIAN_IMAGE_FIXES);
  });
});

describe('lammpsImageKey', () => {
  it('changes with the build script, the packages, the examples, a mirror or the revision', () => {
    assertDistinctKeys<LammpsImageRecipe>(
      lammpsImageKey,
      () => lammpsImageRecipe('script'),
      [lammpsImageRecipe('script, another version')],
      [
        (r) => r.packages.push('hwloc'),
        (r) => r.examples.push('crack'),
        (r) => r.mirrors.pop(),
        (r) => (r.revision += 1),
      ],
    );
  });
});
