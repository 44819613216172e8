// The plain and awkward Flux images, built once into the cache (about a minute as root, after flux-core)
// and reused: what their archives hold, read back with tar, and (as root) a chroot run of each.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import {
  cachedFluxImages,
  checkFluxImage,
  ensureFluxImages,
  readArchiveManifest,
  readFluxCoreVersion,
} from '../../workbench/src/images/index.ts';
import type { FluxImage, FluxImages } from '../../workbench/src/images/index.ts';

const version = readFluxCoreVersion();
const progress = (line: string): void => void process.stderr.write(`[flux-image test] ${line}\n`);

let images: Promise<FluxImages> | undefined;
function fluxImages(): Promise<FluxImages> {
  images ??= ensureFluxImages({ progress });
  return images;
}

interface Layer {
  blob: string;
  /** By path (without `./` or a trailing `/`): `mode uid/gid` and the member name as the tar has it. */
  entries: Map<string, { meta: string; member: string }>;
}

function layers(image: FluxImage, blobs: string[]): Layer[] {
  return blobs.map((blob) => {
    const listing = execFileSync(
      'bash',
      ['-c', 'set -o pipefail; tar -xOf "$1" "$2" | tar --numeric-owner -tvf -', 'list', image.archive, blob],
      { encoding: 'utf8', maxBuffer: 1 << 28 },
    );
    const entries = new Map<string, { meta: string; member: string }>();
    for (const line of listing.trim().split('\n')) {
      // The image's paths have no spaces: mode, owner, size, date, time, name[ -> target].
      const [mode = '', owner = '', , , , member = ''] = line.split(/ +/);
      entries.set(member.replace(/^\.\//, '').replace(/\/$/, ''), { meta: `${mode} ${owner}`, member });
    }
    return { blob, entries };
  });
}

/** A file of the image, as the top-most layer holding it has it. */
function imageFile(image: FluxImage, stack: Layer[], p: string): string {
  const top = [...stack].reverse().find((l) => l.entries.has(p));
  const member = top?.entries.get(p)?.member;
  assert.ok(top && member, `no layer has ${p}`);
  return execFileSync(
    'bash',
    ['-c', 'set -o pipefail; tar -xOf "$1" "$2" | tar -xOf - "$3"', 'read', image.archive, top.blob, member],
    { encoding: 'utf8' },
  );
}

function has(stack: Layer[], p: string): boolean {
  return stack.some((l) => l.entries.has(p));
}

describe('Flux images', () => {
  for (const name of ['plain', 'awkward'] as const) {
    it(`${name}: manifest, flux-core, python bindings, users and /run/munge`, async () => {
      const image = (await fluxImages())[name];
      const manifest = await readArchiveManifest(image.archive);
      assert.equal(manifest.length, 1);
      const [entry] = manifest;
      assert.ok(entry);
      assert.deepEqual(entry.RepoTags, [
        name === 'plain' ? `localhost/flux:${version}` : `localhost/flux:${version}-awkward`,
      ]);
      assert.equal(entry.RepoTags[0], image.reference);
      assert.equal(entry.Config, `blobs/sha256/${image.imageId.slice('sha256:'.length)}`);
      assert.equal(entry.Layers.length, 2, 'the shared base and the variant layer');

      const stack = layers(image, entry.Layers);
      // flux-core at /opt/flux-core (the view's build, relocated), linked where a /usr install has it.
      assert.ok(has(stack, 'usr/bin/flux'));
      assert.ok(has(stack, 'usr/libexec/flux'));
      assert.ok(has(stack, 'opt/flux-core/libexec/flux/cmd'));
      const all = stack.flatMap((l) => [...l.entries.keys()]);
      assert.ok(
        all.some((p) => /^opt\/flux-core\/lib\/python3\.\d+\/site-packages\/flux\/__init__\.py$/.test(p)),
        'python flux module',
      );
      assert.ok(has(stack, 'usr/lib/python3/dist-packages/flux-core.pth'));
      assert.ok(has(stack, 'usr/sbin/munged'));
      assert.deepEqual(
        all.filter((p) => p.startsWith('var/lib/apt/lists/') && !/\/(lock|partial)$/.test(p)),
        [],
        'no apt lists',
      );
      assert.deepEqual(
        all.filter((p) => p.startsWith('dev/')),
        [],
        'no device nodes',
      );

      const passwd = imageFile(image, stack, 'etc/passwd');
      const uid1000 = passwd.split('\n').find((l) => l.split(':')[2] === '1000');
      const munge = passwd.split('\n').find((l) => l.startsWith('munge:'));
      assert.ok(munge, 'munge user');
      const [, , mungeUid, mungeGid] = munge.split(':');
      if (name === 'awkward') {
        assert.equal(uid1000, 'ubuntu:x:1000:1000:Ubuntu:/home/ubuntu:/bin/bash');
        assert.match(imageFile(image, stack, 'etc/group'), /^ubuntu:x:1000:$/m);
        assert.equal(stack[1]?.entries.get('home/ubuntu')?.meta, 'drwxr-x--- 1000/1000');
        assert.equal(has(stack, 'run/munge'), false);
      } else {
        assert.equal(uid1000, undefined);
        assert.equal(stack[1]?.entries.get('run/munge')?.meta, `drwxr-xr-x ${mungeUid}/${mungeGid}`);
      }
    });
  }

  it('a second call reuses the cached archives instead of building again', async () => {
    const first = await fluxImages();
    const written = (image: FluxImage) => statSync(image.archive).mtimeMs;
    const before = [written(first.plain), written(first.awkward)];
    const again = await ensureFluxImages({ progress });
    assert.deepEqual(again, first);
    assert.deepEqual([written(again.plain), written(again.awkward)], before);
    assert.deepEqual(cachedFluxImages(), first);
  });

  it('each image runs flux in a chroot (flux start -s 2 flux run -N2 hostname)', async () => {
    const built = await fluxImages();
    for (const name of ['plain', 'awkward'] as const) {
      const out = await checkFluxImage(built[name].archive, { progress });
      assert.match(out, new RegExp(`commands:\\s+${version.replaceAll('.', '\\.')}\n`));
      const hostname = execFileSync('hostname', { encoding: 'utf8' }).trim();
      assert.match(out, new RegExp(`hostname\\n${hostname}\\n${hostname}\\n`));
      assert.equal(out.includes('munged as munge'), name === 'plain');
      assert.match(out, /== ok\n$/);
    }
  });
});
