import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ASSEMBLE_SCRIPT,
  COPIER_APPLETS,
  COPY_SCRIPT,
  FLUX_VIEW_COPY_COMMAND,
  FLUX_VIEW_INFO,
  FLUX_VIEW_MARKER,
  FLUX_VIEW_MOUNT_PATH,
  FLUX_VIEW_PREFIX,
  FLUX_VIEW_SOURCE,
  copierLayerEntries,
  currentFluxViewRecipe,
  fluxViewBuildArgs,
  fluxViewKey,
  fluxViewRecipe,
  readFluxCoreVersion,
} from '../../../workbench/src/images/index.ts';
import type { FluxViewRecipe } from '../../../workbench/src/images/index.ts';
import { findProjectRoot } from '../../../workbench/src/tooling/project.ts';

const root = findProjectRoot();
const scripts = { assemble: 'assemble v1', zipModules: 'zip v1', copy: 'copy v1' };
const paths = {
  fluxRoot: '/cache/flux-core/0.88.0-mnt-flux-view/root',
  assembleScript: '/p/hack/a.sh',
  zipModulesScript: '/p/hack/z.py',
  outDir: '/cache/w/out',
};
const copyScript = readFileSync(path.join(root, COPY_SCRIPT), 'utf8');

describe('fluxViewRecipe', () => {
  it('names the image after flux-core; its command copies the view to the mount path the prefix lies in', () => {
    const recipe = fluxViewRecipe('0.88.0', scripts);
    assert.equal(recipe.reference, 'localhost/flux-view:0.88.0');
    assert.equal(recipe.prefix, '/mnt/flux/view');
    assert.equal(FLUX_VIEW_PREFIX, `${FLUX_VIEW_MOUNT_PATH}/view`);
    assert.deepEqual(recipe.config.cmd, [FLUX_VIEW_COPY_COMMAND, FLUX_VIEW_MOUNT_PATH]);
    assert.deepEqual(recipe.config.env, ['PATH=/usr/local/bin:/bin']);
    assert.equal(currentFluxViewRecipe().fluxCoreVersion, readFluxCoreVersion());
  });

  it('keys the cache on the version, the packages, every script, the revision and the mirrors', () => {
    const base = fluxViewRecipe('0.88.0', scripts);
    const changed = (change: (r: FluxViewRecipe) => void): FluxViewRecipe => {
      const copy = structuredClone(base);
      change(copy);
      return copy;
    };
    const keys = [
      fluxViewKey(base),
      fluxViewKey(fluxViewRecipe('0.89.0', scripts)),
      fluxViewKey(fluxViewRecipe('0.88.0', { ...scripts, assemble: 'assemble v2' })),
      fluxViewKey(fluxViewRecipe('0.88.0', { ...scripts, zipModules: 'zip v2' })),
      fluxViewKey(fluxViewRecipe('0.88.0', { ...scripts, copy: 'copy v2' })),
      fluxViewKey(changed((r) => r.packages.push('strace'))),
      fluxViewKey(changed((r) => (r.revision += 1))),
      fluxViewKey(changed((r) => r.mirrors.pop())),
    ];
    assert.equal(new Set(keys).size, keys.length, keys.join(' '));
    assert.equal(fluxViewKey(base), fluxViewKey(fluxViewRecipe('0.88.0', { ...scripts })));
    assert.match(fluxViewKey(base), /^[0-9a-f]{16}$/);
  });
});

describe('fluxViewBuildArgs', () => {
  it('assembles in a throw-away bookworm: flux-core synced in, the scripts uploaded, the assembly run in the chroot, the view and busybox copied out', () => {
    const args = fluxViewBuildArgs(fluxViewRecipe('0.88.0', scripts), paths);
    assert.deepEqual(args.slice(0, 4), [
      '--variant=minbase',
      '--mode=root',
      '--format=null',
      '--architectures=amd64',
    ]);
    const include =
      args
        .find((a) => a.startsWith('--include='))
        ?.slice('--include='.length)
        .split(',') ?? [];
    assert.deepEqual(include, [...include].sort());
    for (const p of [
      'python3',
      'python3-cffi',
      'python3-ply',
      'python3-yaml',
      'munge',
      'lua5.1',
      'patchelf',
      'busybox-static',
    ]) {
      assert.ok(include.includes(p), p);
    }
    assert.deepEqual(
      args.filter((a) => a.startsWith('--customize-hook=')),
      [
        `--customize-hook=sync-in ${paths.fluxRoot} /`,
        `--customize-hook=upload ${paths.assembleScript} /tmp/assemble-flux-view.sh`,
        `--customize-hook=upload ${paths.zipModulesScript} /tmp/zip-python-modules.py`,
        `--customize-hook=chroot "$1" bash /tmp/assemble-flux-view.sh /mnt/flux/view 'flux-core 0.88.0' 'image localhost/flux-view:0.88.0'`,
        `--customize-hook=sync-out /mnt/flux/view ${paths.outDir}/view`,
        `--customize-hook=copy-out /usr/bin/busybox ${paths.outDir}`,
      ],
    );
    assert.deepEqual(args.slice(-5), [
      'bookworm',
      '/dev/null',
      'deb http://deb.debian.org/debian bookworm main',
      'deb http://deb.debian.org/debian bookworm-updates main',
      'deb http://deb.debian.org/debian-security bookworm-security main',
    ]);
  });

  it('refuses a path an mmdebstrap hook would split, and a version that is unsafe in the hook', () => {
    assert.throws(
      () => fluxViewBuildArgs(fluxViewRecipe('0.88.0', scripts), { ...paths, outDir: '/tmp/my out' }),
      /outDir must be an absolute path without spaces: \/tmp\/my out/,
    );
    assert.throws(
      () => fluxViewBuildArgs(fluxViewRecipe("0.88'; rm -rf /", scripts), paths),
      /unsafe info line for the view/,
    );
  });
});

describe('copierLayerEntries', () => {
  const entries = copierLayerEntries('/cache/w/out/busybox', copyScript);

  it('holds busybox, a link per applet and the copy script, in path order', () => {
    assert.deepEqual(
      entries.map((e) => e.path),
      [...entries.map((e) => e.path)].sort(),
    );
    const busybox = entries.find((e) => e.path === 'bin/busybox');
    assert.deepEqual(busybox, {
      type: 'file',
      path: 'bin/busybox',
      mode: 0o755,
      source: '/cache/w/out/busybox',
    });
    for (const applet of COPIER_APPLETS) {
      assert.deepEqual(
        entries.find((e) => e.path === `bin/${applet}`),
        { type: 'symlink', path: `bin/${applet}`, target: 'busybox', mode: 0o777 },
      );
    }
    const script = entries.find((e) => e.path === 'usr/local/bin/flux-view-copy');
    assert.ok(script && script.type === 'file' && 'data' in script);
    assert.equal(script.data, copyScript);
    assert.equal(script.mode, 0o755);
  });

  it('has an applet for every command the copy script runs', () => {
    // Words in command position: at the start of a line, after $( | ; && or `then`; sh's builtins aside.
    const builtins = new Set(['set', 'echo', 'exit', 'if', 'then', 'else', 'fi']);
    const commands = new Set<string>();
    for (const raw of copyScript.split('\n')) {
      const line = raw.trim();
      if (line.startsWith('#')) continue;
      for (const m of line.matchAll(/(?:^|\$\(|\|\s*|;\s*|&&\s*|\bthen\s+)([a-z][a-z0-9-]*)(?=\s|$|\))/g)) {
        if (m[1] !== undefined && !builtins.has(m[1])) commands.add(m[1]);
      }
    }
    const missing = [...commands].filter((c) => !COPIER_APPLETS.includes(c));
    assert.deepEqual(missing, [], `commands of ${COPY_SCRIPT} without a busybox link: ${missing.join(', ')}`);
    assert.ok(commands.has('cp') && commands.has('mv') && commands.has('sed'), [...commands].join(' '));
  });
});

describe('the copy script and the assembly agree with the recipe', () => {
  it('copies from the image path to <mount path>/view, writes the marker from the info file', () => {
    assert.match(copyScript, new RegExp(`^source_dir=${FLUX_VIEW_SOURCE}$`, 'm'));
    assert.match(copyScript, new RegExp(`^info=\\$source_dir/${FLUX_VIEW_INFO}$`, 'm'));
    assert.match(copyScript, new RegExp(`^mount_path=\\$\\{1:-${FLUX_VIEW_MOUNT_PATH}\\}$`, 'm'));
    assert.match(copyScript, /^target=\$mount_path\/view$/m);
    assert.match(
      copyScript,
      new RegExp(`^marker=\\$mount_path/${FLUX_VIEW_MARKER.replace('.', '\\.')}$`, 'm'),
    );
    const assemble = readFileSync(path.join(root, ASSEMBLE_SCRIPT), 'utf8');
    assert.match(assemble, new RegExp(`"\\$P/${FLUX_VIEW_INFO}"`));
    assert.match(assemble, /echo "prefix \$P"/);
  });
});
