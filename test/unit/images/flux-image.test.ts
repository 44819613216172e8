import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  FLUX_CORE_PREFIX,
  FLUX_IMAGE_PREFIX,
  FLUX_IN_USR_LINKS,
  FLUX_RUNTIME_PACKAGES,
  fluxCoreDir,
  fluxViewRecipe,
  fluxBaseRecipe,
  fluxImageRecipe,
  mmdebstrapArgs,
  readFluxCoreVersion,
  recipeKey,
  recipeRepository,
  variantLayerEntries,
} from '../../../workbench/src/images/index.ts';
import type { BaseEtc, BaseFile, FluxImageRecipe } from '../../../workbench/src/images/index.ts';

const paths = {
  fluxRoot: '/cache/flux-core/0.88.0-mnt-flux-view/root',
  output: '/cache/images/work/base.tar',
  etcCopy: '/cache/images/work/etc',
};

describe('fluxImageRecipe', () => {
  it('names the plain and awkward images after the flux-core version', () => {
    const recipe = fluxImageRecipe('0.88.0');
    assert.equal(recipe.variants.plain.reference, 'localhost/flux:0.88.0');
    assert.equal(recipe.variants.awkward.reference, 'localhost/flux:0.88.0-awkward');
    assert.deepEqual(recipe.config, {
      env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      cmd: ['/bin/bash'],
    });
    assert.match(readFluxCoreVersion(), /^\d+\.\d+\.\d+$/);
  });
});

describe('fluxBaseRecipe', () => {
  const one = { only: { reference: 'localhost:5000/team/app:1.0', steps: [] } };

  it('adds the extra packages to the runtime ones, once each and sorted', () => {
    const recipe = fluxBaseRecipe('0.88.0', ['strace', 'python3', 'gdb'], one);
    assert.deepEqual(recipe.packages, [...FLUX_RUNTIME_PACKAGES, 'gdb', 'strace'].sort());
    assert.deepEqual(recipe.variants, one);
    assert.deepEqual(fluxBaseRecipe('0.88.0', [], one).packages, FLUX_RUNTIME_PACKAGES);
  });

  it("names the cache folder after the variants' repository without its host", () => {
    assert.equal(recipeRepository(fluxImageRecipe('0.88.0')), 'flux');
    assert.equal(recipeRepository(fluxBaseRecipe('0.88.0', [], one)), 'app');
    assert.throws(() => recipeRepository(fluxBaseRecipe('0.88.0', [], {})), /needs a variant/);
  });
});

describe('recipeKey', () => {
  const base = fluxImageRecipe('0.88.0');
  const withChange = (change: (r: FluxImageRecipe) => void): FluxImageRecipe => {
    const copy = structuredClone(base);
    change(copy);
    return copy;
  };

  it('is stable for the same recipe', () => {
    assert.equal(recipeKey(base), recipeKey(fluxImageRecipe('0.88.0')));
    assert.match(recipeKey(base), /^[0-9a-f]{16}$/);
  });

  it('changes when a package, the version, a mirror, a variant step or the revision changes', () => {
    const keys = [
      recipeKey(base),
      recipeKey(withChange((r) => r.packages.push('strace'))),
      recipeKey(fluxImageRecipe('0.89.0')),
      recipeKey(withChange((r) => r.mirrors.pop())),
      recipeKey(
        withChange((r) =>
          r.variants.plain.steps.push({ kind: 'owned-dir', path: '/x', owner: 'munge', mode: 0o700 }),
        ),
      ),
      recipeKey(withChange((r) => (r.revision += 1))),
      recipeKey(withChange((r) => (r.sourceDateEpoch += 1))),
      recipeKey(withChange((r) => r.config.cmd?.push('-l'))),
    ];
    assert.equal(new Set(keys).size, keys.length, keys.join(' '));
  });
});

describe('mmdebstrapArgs', () => {
  it('builds a minbase bookworm tar with the runtime packages and flux-core, from the three bookworm suites', () => {
    assert.deepEqual(mmdebstrapArgs(fluxImageRecipe('0.88.0'), paths), [
      '--variant=minbase',
      '--mode=root',
      '--format=tar',
      '--architectures=amd64',
      '--include=libarchive13,libhwloc15,libjansson4,liblua5.1-0,liblz4-1,libmunge2,libncursesw6,libpython3.11,' +
        'libsqlite3-0,libuuid1,libzmq5,lua-posix,lua5.1,munge,procps,python3,python3-cffi,python3-ply,python3-yaml',
      '--dpkgopt=path-exclude=/usr/share/man/*',
      '--dpkgopt=path-exclude=/usr/share/info/*',
      '--dpkgopt=path-exclude=/usr/share/doc/*',
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      '--dpkgopt=path-exclude=/usr/share/locale/*',
      '--dpkgopt=path-include=/usr/share/locale/locale.alias',
      '--customize-hook=sync-in /cache/flux-core/0.88.0-mnt-flux-view/root /',
      '--customize-hook=mkdir -p "$1/usr/bin" && ln -s ../../opt/flux-core/bin/flux "$1/usr/bin/flux"',
      '--customize-hook=mkdir -p "$1/usr/bin" && ln -s ../../opt/flux-core/bin/flux-python "$1/usr/bin/flux-python"',
      '--customize-hook=mkdir -p "$1/usr/libexec" && ln -s ../../opt/flux-core/libexec/flux "$1/usr/libexec/flux"',
      '--customize-hook=mkdir -p "$1/etc/flux" && ln -s ../../opt/flux-core/etc/flux/shell "$1/etc/flux/shell"',
      '--customize-hook=mkdir -p "$1/opt/flux-core/bin" && ln -s ../../../usr/bin/python3 "$1/opt/flux-core/bin/python3"',
      '--customize-hook=for d in "$1"/opt/flux-core/lib/python3*/site-packages; do if [ -d "$d/flux" ]; then echo "${d#"$1"}"; fi; done >"$1/usr/lib/python3/dist-packages/flux-core.pth"',
      '--customize-hook=rm -f "$1/etc/hostname" "$1/etc/resolv.conf" && touch "$1/etc/hostname" "$1/etc/resolv.conf"',
      '--customize-hook=copy-out /etc/passwd /etc/group /etc/shadow /etc/gshadow /etc/skel /cache/images/work/etc',
      'bookworm',
      '/cache/images/work/base.tar',
      'deb http://deb.debian.org/debian bookworm main',
      'deb http://deb.debian.org/debian bookworm-updates main',
      'deb http://deb.debian.org/debian-security bookworm-security main',
    ]);
  });

  it('includes every runtime package the brief names', () => {
    for (const p of [
      'libzmq5',
      'libjansson4',
      'liblz4-1',
      'libarchive13',
      'libhwloc15',
      'libsqlite3-0',
      'libuuid1',
    ]) {
      assert.ok(FLUX_RUNTIME_PACKAGES.includes(p), p);
    }
    for (const p of [
      'lua5.1',
      'lua-posix',
      'python3',
      'python3-cffi',
      'python3-yaml',
      'python3-ply',
      'munge',
    ]) {
      assert.ok(FLUX_RUNTIME_PACKAGES.includes(p), p);
    }
    for (const p of ['libmunge2', 'procps']) assert.ok(FLUX_RUNTIME_PACKAGES.includes(p), p);
  });

  it('refuses paths mmdebstrap would split or resolve elsewhere', () => {
    const recipe = fluxImageRecipe('0.88.0');
    assert.throws(() => mmdebstrapArgs(recipe, { ...paths, fluxRoot: '/my cache/root' }), /without spaces/);
    assert.throws(() => mmdebstrapArgs(recipe, { ...paths, etcCopy: 'work/etc' }), /absolute path/);
  });
});

describe('FLUX_IN_USR_LINKS', () => {
  it("puts flux-core, relocated out of /mnt/flux, where an image's /usr install has it, each link resolving to its place", () => {
    assert.equal(FLUX_IMAGE_PREFIX, '/opt/flux-core');
    const resolved = Object.fromEntries(
      Object.entries(FLUX_IN_USR_LINKS).map(([link, target]) => [
        link,
        path.posix.resolve(path.posix.dirname(link), target),
      ]),
    );
    assert.deepEqual(resolved, {
      '/usr/bin/flux': '/opt/flux-core/bin/flux',
      '/usr/bin/flux-python': '/opt/flux-core/bin/flux-python',
      '/usr/libexec/flux': '/opt/flux-core/libexec/flux',
      '/etc/flux/shell': '/opt/flux-core/etc/flux/shell',
      '/opt/flux-core/bin/python3': '/usr/bin/python3',
    });
    for (const target of Object.values(FLUX_IN_USR_LINKS)) assert.ok(!path.posix.isAbsolute(target), target);
  });

  it("relocates the view's build: one flux-core for both, its prefix rewritten in place (same length)", () => {
    assert.equal(
      fluxViewRecipe('0.88.0', { assemble: '', zipModules: '', copy: '' }).prefix,
      FLUX_CORE_PREFIX,
    );
    assert.equal(FLUX_IMAGE_PREFIX.length, FLUX_CORE_PREFIX.length);
    // Not under the state volume's mount of a MiniCluster running Flux from its image.
    assert.ok(!FLUX_IMAGE_PREFIX.startsWith('/mnt/flux/'));
    assert.match(
      fluxCoreDir('0.88.0', { FLUX_OPERATOR_CACHE: '/c' }),
      /^\/c\/flux-core\/0\.88\.0-mnt-flux-view$/,
    );
  });
});

describe('variantLayerEntries', () => {
  const file = (text: string, mode = 0o644, gid = 0): BaseFile => ({
    data: Buffer.from(text),
    mode,
    uid: 0,
    gid,
  });
  const base: BaseEtc = {
    passwd: file('root:x:0:0:root:/root:/bin/bash\nmunge:x:100:101::/nonexistent:/usr/sbin/nologin\n'),
    group: file('root:x:0:\nshadow:x:42:\nmunge:x:101:\n'),
    shadow: file('root:*:20000:0:99999:7:::\nmunge:!:20000::::::\n', 0o640, 42),
    gshadow: file('root:*::\nshadow:*::\nmunge:!::\n', 0o640, 42),
    skel: { '.bashrc': file('# bashrc\n'), '.profile': file('# profile\n') },
  };

  it('plain: /run/munge owned by the munge user and group of the base', () => {
    const steps = fluxImageRecipe('0.88.0').variants.plain.steps;
    assert.deepEqual(variantLayerEntries(steps, base), [
      { type: 'directory', path: 'run', mode: 0o755 },
      { type: 'directory', path: 'run/munge', mode: 0o755, uid: 100, gid: 101 },
    ]);
  });

  it('awkward: user ubuntu (uid and gid 1000) in the four files of /etc, with a home from /etc/skel', () => {
    const steps = fluxImageRecipe('0.88.0').variants.awkward.steps;
    const entries = variantLayerEntries(steps, base);
    assert.deepEqual(
      entries.map((e) => [e.type, e.path, e.mode.toString(8), e.uid ?? 0, e.gid ?? 0]),
      [
        ['directory', 'etc', '755', 0, 0],
        ['file', 'etc/group', '644', 0, 0],
        ['file', 'etc/gshadow', '640', 0, 42],
        ['file', 'etc/passwd', '644', 0, 0],
        ['file', 'etc/shadow', '640', 0, 42],
        ['directory', 'home', '755', 0, 0],
        ['directory', 'home/ubuntu', '750', 1000, 1000],
        ['file', 'home/ubuntu/.bashrc', '644', 1000, 1000],
        ['file', 'home/ubuntu/.profile', '644', 1000, 1000],
      ],
    );
    const text = (p: string): string => {
      const e = entries.find((x) => x.path === p);
      assert.ok(e?.type === 'file' && 'data' in e);
      return Buffer.from(e.data).toString('utf8');
    };
    assert.equal(text('etc/passwd'), `${base.passwd.data}ubuntu:x:1000:1000:Ubuntu:/home/ubuntu:/bin/bash\n`);
    assert.equal(text('etc/group'), `${base.group.data}ubuntu:x:1000:\n`);
    assert.equal(text('etc/shadow'), `${base.shadow.data}ubuntu:!::0:99999:7:::\n`);
    assert.equal(text('etc/gshadow'), `${base.gshadow.data}ubuntu:!::\n`);
    assert.equal(text('home/ubuntu/.bashrc'), '# bashrc\n');
  });

  it('refuses a uid or name already taken, and an owner the base lacks', () => {
    const taken = { ...base, passwd: file(`${base.passwd.data}ubuntu:x:1000:1000::/home/ubuntu:/bin/sh\n`) };
    assert.throws(
      () => variantLayerEntries(fluxImageRecipe('0.88.0').variants.awkward.steps, taken),
      /cannot add user ubuntu \(uid 1000\): ubuntu is already there/,
    );
    assert.throws(
      () => variantLayerEntries([{ kind: 'owned-dir', path: '/run/x', owner: 'nobody', mode: 0o755 }], base),
      /no user nobody/,
    );
  });
});
