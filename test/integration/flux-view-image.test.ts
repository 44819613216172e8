// The Flux view image and the plain images, built once into the cache (as root: flux-core for the view's
// prefix once, about 12 minutes; the assembly about 2 minutes; each plain image under a minute) and
// reused: what their archives hold, read back with tar, and the view run as a pod runs it, in chroots
// of the view image and of each plain image, as root and as uid 1000.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import {
  COPIER_APPLETS,
  PLAIN_SUITES,
  checkFluxView,
  ensureFluxViewBuild,
  ensurePlainImageBuild,
  readArchiveManifest,
  readFluxCoreVersion,
} from '../../workbench/src/images/index.ts';
import type { FluxViewBuild, PlainImageBuild, PlainSuite } from '../../workbench/src/images/index.ts';

const version = readFluxCoreVersion();
const progress = (line: string): void => void process.stderr.write(`[flux-view test] ${line}\n`);

let view: Promise<FluxViewBuild> | undefined;
function viewBuild(): Promise<FluxViewBuild> {
  view ??= ensureFluxViewBuild({ progress });
  return view;
}
const plain = new Map<PlainSuite, Promise<PlainImageBuild>>();
function plainBuild(suite: PlainSuite): Promise<PlainImageBuild> {
  let build = plain.get(suite);
  if (build === undefined) {
    build = ensurePlainImageBuild(suite, { progress });
    plain.set(suite, build);
  }
  return build;
}

/** `mode owner` by path (no `./`, no trailing `/`) of one layer of an archive, and symlink targets. */
function listLayer(archive: string, blob: string): Map<string, string> {
  const listing = execFileSync(
    'bash',
    ['-c', 'set -o pipefail; tar -xOf "$1" "$2" | tar --numeric-owner -tvf -', 'list', archive, blob],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const entries = new Map<string, string>();
  for (const line of listing.trim().split('\n')) {
    // mode owner size date time name[ -> target]: the images' paths have no spaces.
    const [mode = '', owner = '', , , , name = '', arrow, target] = line.split(/ +/);
    const key = name.replace(/^\.\//, '').replace(/\/$/, '');
    entries.set(key, `${mode} ${owner}${arrow === '->' ? ` -> ${target}` : ''}`);
  }
  return entries;
}

function layerFile(archive: string, blob: string, member: string): string {
  return execFileSync(
    'bash',
    ['-c', 'set -o pipefail; tar -xOf "$1" "$2" | tar -xOf - "$3"', 'read', archive, blob, member],
    { encoding: 'utf8' },
  );
}

describe('the Flux view image', () => {
  it('is the copier layer (busybox, the copy script) and the view at /opt/flux-view, all root-owned', async () => {
    const build = await viewBuild();
    assert.equal(build.reference, `localhost/flux-view:${version}`);
    const [entry] = await readArchiveManifest(build.archive);
    assert.ok(entry);
    assert.deepEqual(entry.RepoTags, [build.reference]);
    assert.equal(entry.Config, `blobs/sha256/${build.imageId.slice('sha256:'.length)}`);
    assert.equal(entry.Layers.length, 2);
    const [copierBlob = '', viewBlob = ''] = entry.Layers;

    const copier = listLayer(build.archive, copierBlob);
    assert.match(copier.get('bin/busybox') ?? '', /^-rwxr-xr-x 0\/0$/);
    for (const applet of COPIER_APPLETS)
      assert.match(copier.get(`bin/${applet}`) ?? '', / -> busybox$/, applet);
    assert.match(copier.get('usr/local/bin/flux-view-copy') ?? '', /^-rwxr-xr-x 0\/0$/);
    // busybox is static: the image has no loader or library for it.
    assert.deepEqual(
      [...copier.keys()].filter((p) => /\.so(\.|$)/.test(p)),
      [],
    );

    const files = listLayer(build.archive, viewBlob);
    for (const p of [
      'opt/flux-view/bin/flux',
      'opt/flux-view/bin/python3.11',
      'opt/flux-view/sbin/munged',
      'opt/flux-view/bin/munge',
      'opt/flux-view/bin/unmunge',
      'opt/flux-view/bin/lua5.1',
      'opt/flux-view/lib/ld-linux-x86-64.so.2',
      'opt/flux-view/lib/libc.so.6',
      'opt/flux-view/lib/libzmq.so.5',
      'opt/flux-view/lib/libmunge.so.2',
      'opt/flux-view/lib/python3/dist-packages/flux-core.pth',
      'opt/flux-view/share/flux-view/info',
      'opt/flux-view/share/doc/flux-view/copyright',
      // Python's pure modules, zipped: one file each to create in the pod, not a thousand.
      'opt/flux-view/lib/python311.zip',
      'opt/flux-view/lib/python3/dist-packages.zip',
      'opt/flux-view/lib/python3/dist-packages/dist-packages-zip.pth',
    ]) {
      assert.ok(files.has(p), p);
    }
    assert.match(files.get('opt/flux-view/bin/python3') ?? '', / -> python3\.11$/);
    assert.ok(
      [...files.keys()].some((p) =>
        /^opt\/flux-view\/lib\/python3\.11\/site-packages\/flux\/__init__\.py$/.test(p),
      ),
    );
    assert.deepEqual(
      [...files].filter(([, meta]) => !/ 0\/0( |$)/.test(meta)).map(([p]) => p),
      [],
      'every file belongs to root',
    );
    assert.deepEqual(
      [...files.keys()].filter((p) => /(^|\/)(include|pkgconfig)(\/|$)|\.(a|la)$/.test(p)),
      [],
      'no headers, pkg-config files or static libraries',
    );
    assert.ok(build.viewFiles < 1000, `the view has ${build.viewFiles} files`);
    const copyrights = layerFile(build.archive, viewBlob, 'opt/flux-view/share/doc/flux-view/copyright');
    assert.match(copyrights, /^==> Debian package munge: \/usr\/share\/doc\/munge\/copyright <==$/m);
    const info = layerFile(build.archive, viewBlob, 'opt/flux-view/share/flux-view/info');
    assert.match(info, new RegExp(`^flux-core ${version.replaceAll('.', '\\.')}$`, 'm'));
    assert.match(info, /^prefix \/mnt\/flux\/view$/m);
    assert.match(info, /^debian-packages .*\blibc6\b.*\bmunge\b.*\bpython3\.11-minimal\b/m);
    progress(
      `the view: ${(build.viewBytes / 2 ** 20).toFixed(0)} MiB in ${build.viewFiles} files; archive ${(build.bytes / 2 ** 20).toFixed(0)} MiB; ` +
        `built in ${JSON.stringify(build.seconds)}`,
    );
  });

  it('a second call reuses the cached archive instead of building again', async () => {
    const first = await viewBuild();
    const before = statSync(first.archive).mtimeMs;
    const t0 = Date.now();
    const again = await ensureFluxViewBuild({ progress });
    const cachedMs = Date.now() - t0;
    assert.deepEqual(again, first);
    assert.equal(statSync(first.archive).mtimeMs, before);
    assert.ok(cachedMs < 5_000, `the cached build took ${cachedMs} ms`);
    progress(`cached: ${cachedMs} ms`);
  });
});

describe('the plain images', () => {
  for (const suite of PLAIN_SUITES) {
    it(`${suite}: bash and coreutils with root alone in /etc/passwd; no Flux, Python, munge, sh, sed, grep or dpkg`, async () => {
      const build = await plainBuild(suite);
      assert.equal(build.reference, `localhost/plain:${suite}`);
      const [entry] = await readArchiveManifest(build.archive);
      assert.ok(entry);
      assert.deepEqual(entry.RepoTags, [build.reference]);
      assert.equal(entry.Layers.length, 1);
      const blob = entry.Layers[0] ?? '';
      const files = listLayer(build.archive, blob);
      assert.match(files.get('bin') ?? '', / -> usr\/bin$/);
      for (const p of [
        'usr/bin/bash',
        'usr/bin/ls',
        'usr/bin/cp',
        'usr/bin/od',
        'usr/bin/timeout',
        'usr/bin/mktemp',
      ]) {
        assert.ok(files.has(p), p);
      }
      const absent = [...files.keys()].filter((p) =>
        /^usr\/(s?bin)\/(sh|dash|sed|grep|python3.*|munged?|flux|dpkg|apt|apt-get|perl)$/.test(p),
      );
      assert.deepEqual(absent, []);
      assert.deepEqual(
        [...files.keys()].filter((p) => p.startsWith('dev/')),
        [],
        'no device nodes',
      );
      assert.equal(layerFile(build.archive, blob, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
      assert.match(
        layerFile(build.archive, blob, 'usr/lib/os-release'),
        new RegExp(`VERSION_CODENAME=${suite}`),
      );
      progress(
        `${build.reference}: ${(build.bytes / 2 ** 20).toFixed(0)} MiB, built in ${JSON.stringify(build.seconds)}`,
      );
    });
  }
});

describe('the view in a plain image, in chroots (as a pod runs it)', () => {
  for (const suite of PLAIN_SUITES) {
    it(`${suite}: copied by the image's command; Flux, its Python and munge work as root and as uid 1000`, async () => {
      const out = await checkFluxView((await viewBuild()).archive, (await plainBuild(suite)).archive, {
        progress,
      });
      assert.match(out, /copied the Flux view to \/mnt\/flux\/view in \d+ s \(\d+ MiB\)/);
      progress(
        `${suite}: ${out
          .split('\n')
          .filter((l) => /^copy took|copied the Flux view|ELF files/.test(l))
          .join('; ')}`,
      );
      assert.match(out, /\/mnt\/flux\/view already holds this view/);
      assert.match(
        out,
        /exit 2: flux-view-copy: this view was built for \/mnt\/flux\/view .*mount the shared volume at \/mnt\/flux, not at \/mnt\/elsewhere/,
      );
      const asRoot = out.indexOf('== as uid 0,');
      const asUser = out.indexOf('== as uid 1000,');
      assert.ok(asRoot !== -1 && asUser > asRoot, 'a run as root, then one as uid 1000');
      for (const [uid, part] of [
        ['0', out.slice(asRoot, asUser)],
        ['1000', out.slice(asUser)],
      ] as const) {
        const elf = /^(\d+) ELF files, every library from the view$/m.exec(part);
        assert.ok(elf && Number(elf[1]) > 100, `ELF files checked as uid ${uid}: ${elf?.[1]}`);
        assert.match(part, new RegExp(`commands:\\s+${version.replaceAll('.', '\\.')}\\n`));
        assert.match(part, /^\/mnt\/flux\/view\/lib\/.*flux\/__init__\.py$/m);
        const ranks = part.match(/^\d: rank \d of \S+ size 2$/gm) ?? [];
        assert.deepEqual(
          ranks.map((l) => l.slice(0, 9)),
          ['0: rank 0', '1: rank 1'],
          `flux run -N2 as uid ${uid}`,
        );
        assert.match(part, /^STATUS:\s+Success \(0\)$/m);
        assert.match(part, /== ok/);
      }
      if (suite === 'trixie') {
        assert.match(out, /in 13\.\d+ with GNU bash, version 5\.2/);
      } else {
        assert.match(out, /in 12\.\d+ with GNU bash, version 5\.2/);
      }
    });
  }
});
