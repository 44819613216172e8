import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  FLUX_LAMMPS_IMAGE,
  FLUX_LAMMPS_PACKAGES,
  FLUX_RUNTIME_PACKAGES,
  MPI_IMAGE_PACKAGES,
  fluxImageRecipe,
  fluxImagesDir,
  fluxLammpsImageRecipe,
  mmdebstrapArgs,
  readFluxCoreVersion,
  recipeKey,
  variantLayerEntries,
} from '../../../workbench/src/images/index.ts';
import type { BaseEtc, BaseFile } from '../../../workbench/src/images/index.ts';
import { BASH_IMAGE_CONFIG, BOOKWORM_MIRRORS } from './fixtures.ts';

describe('fluxLammpsImageRecipe', () => {
  it('names the image after the flux-core version of hack/versions.env', () => {
    assert.equal(FLUX_LAMMPS_IMAGE, 'localhost/flux-lammps:0.88.0');
    assert.equal(fluxLammpsImageRecipe(readFluxCoreVersion()).variants.lammps.reference, FLUX_LAMMPS_IMAGE);
  });

  it("is the Flux images' base with the LAMMPS image's packages, and plain's /run/munge as its one variant", () => {
    assert.deepEqual(FLUX_LAMMPS_PACKAGES, ['lammps', 'lammps-examples', 'openmpi-bin']);
    assert.deepEqual(FLUX_LAMMPS_PACKAGES, MPI_IMAGE_PACKAGES['lammps-openmpi']);
    assert.deepEqual(fluxLammpsImageRecipe('0.88.0'), {
      revision: 2,
      fluxCoreVersion: '0.88.0',
      sourceDateEpoch: 1_735_689_600,
      suite: 'bookworm',
      mirrors: BOOKWORM_MIRRORS,
      packages: [...FLUX_RUNTIME_PACKAGES, ...FLUX_LAMMPS_PACKAGES].sort(),
      config: BASH_IMAGE_CONFIG,
      variants: {
        lammps: {
          reference: 'localhost/flux-lammps:0.88.0',
          steps: [{ kind: 'owned-dir', path: '/run/munge', owner: 'munge', mode: 0o755 }],
        },
      },
    });
    const flux = fluxImageRecipe('0.88.0');
    const lammps = fluxLammpsImageRecipe('0.88.0');
    assert.deepEqual(lammps.variants.lammps.steps, flux.variants.plain.steps);
    assert.deepEqual(
      lammps.packages.filter((p) => !FLUX_LAMMPS_PACKAGES.includes(p)),
      flux.packages,
    );
  });

  it('installs the packages with apt in the minbase chroot (maintainer scripts run), then flux-core linked into /usr', () => {
    const args = mmdebstrapArgs(fluxLammpsImageRecipe('0.88.0'), {
      fluxRoot: '/cache/flux-core/0.88.0-mnt-flux-view/root',
      output: '/cache/images/work/base.tar',
      etcCopy: '/cache/images/work/etc',
    });
    assert.deepEqual(args.slice(0, 5), [
      '--variant=minbase',
      '--mode=root',
      '--format=tar',
      '--architectures=amd64',
      '--include=lammps,lammps-examples,libarchive13,libhwloc15,libjansson4,liblua5.1-0,liblz4-1,libmunge2,' +
        'libncursesw6,libpython3.11,libsqlite3-0,libuuid1,libzmq5,lua-posix,lua5.1,munge,openmpi-bin,procps,' +
        'python3,python3-cffi,python3-ply,python3-yaml',
    ]);
    assert.deepEqual(args.slice(11, 13), [
      '--customize-hook=sync-in /cache/flux-core/0.88.0-mnt-flux-view/root /',
      '--customize-hook=mkdir -p "$1/usr/bin" && ln -s ../../opt/flux-core/bin/flux "$1/usr/bin/flux"',
    ]);
    // The same base as the Flux images' but for the packages: the same flux-core, linked the same way.
    const flux = mmdebstrapArgs(fluxImageRecipe('0.88.0'), {
      fluxRoot: '/cache/flux-core/0.88.0-mnt-flux-view/root',
      output: '/cache/images/work/base.tar',
      etcCopy: '/cache/images/work/etc',
    });
    assert.deepEqual(args.slice(5), flux.slice(5));
    assert.deepEqual(args.slice(-4), ['/cache/images/work/base.tar', ...BOOKWORM_MIRRORS]);
  });

  it('has its own cache folder, keyed by its recipe', () => {
    const env = { FLUX_OPERATOR_CACHE: '/cache' };
    const lammps = fluxLammpsImageRecipe('0.88.0');
    const key = recipeKey(lammps);
    assert.match(key, /^[0-9a-f]{16}$/);
    assert.notEqual(key, recipeKey(fluxImageRecipe('0.88.0')));
    assert.notEqual(key, recipeKey(fluxLammpsImageRecipe('0.89.0')));
    assert.equal(fluxImagesDir(lammps, env), `/cache/images/flux-lammps-0.88.0-${key}`);
    assert.equal(
      fluxImagesDir(fluxImageRecipe('0.88.0'), env),
      `/cache/images/flux-0.88.0-${recipeKey(fluxImageRecipe('0.88.0'))}`,
    );
  });

  it('its layer is the plain image layer: /run/munge owned by munge', () => {
    const file = (text: string): BaseFile => ({ data: Buffer.from(text), mode: 0o644, uid: 0, gid: 0 });
    const base: BaseEtc = {
      passwd: file('root:x:0:0:root:/root:/bin/bash\nmunge:x:100:101::/nonexistent:/usr/sbin/nologin\n'),
      group: file('root:x:0:\nmunge:x:101:\n'),
      shadow: file('root:*:20000:0:99999:7:::\n'),
      gshadow: file('root:*::\n'),
      skel: {},
    };
    assert.deepEqual(variantLayerEntries(fluxLammpsImageRecipe('0.88.0').variants.lammps.steps, base), [
      { type: 'directory', path: 'run', mode: 0o755 },
      { type: 'directory', path: 'run/munge', mode: 0o755, uid: 100, gid: 101 },
    ]);
  });
});
