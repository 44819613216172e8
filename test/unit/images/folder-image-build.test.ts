import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  cachedImageSet,
  ensureImageBuild,
  ensureImageSet,
  freshWorkDir,
  imageCacheDir,
  packFolderImage,
  readArchiveManifest,
  readImageBuild,
  stepTimer,
} from '../../../workbench/src/images/index.ts';
import type { ImageBuildRecord } from '../../../workbench/src/images/index.ts';
import { BASH_IMAGE_CONFIG } from './fixtures.ts';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'folder-image-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A build record in `<root>/<name>` whose archive is there. */
async function recordedBuild(root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  const archive = path.join(dir, `${name}.tar`);
  await writeFile(archive, '');
  const record = { reference: `localhost/${name}:1`, archive, imageId: `sha256:${name}`, key: name };
  await writeFile(path.join(dir, 'build.json'), JSON.stringify(record));
  return dir;
}

describe('packFolderImage', () => {
  it('packs the folder as the one layer into the cache folder, removes the work folder and says so', async (t) => {
    const dir = await tempDir(t);
    const work = await freshWorkDir(dir, process.env);
    const rootfs = path.join(work, 'rootfs');
    await mkdir(path.join(rootfs, 'etc'), { recursive: true });
    await writeFile(path.join(rootfs, 'etc/hostname'), '');
    const lines: string[] = [];
    const timer = stepTimer();
    const packed = await packFolderImage(
      { reference: 'localhost/folder:test', config: BASH_IMAGE_CONFIG, history: 'a folder' },
      { dir, work, rootfs, timer, env: process.env, progress: (l) => lines.push(l) },
    );
    assert.equal(packed.reference, 'localhost/folder:test');
    assert.equal(path.dirname(packed.archive), dir);
    assert.match(packed.imageId, /^sha256:[0-9a-f]{64}$/);
    assert.ok(packed.bytes > 0);
    assert.deepEqual(Object.keys(packed.seconds), ['layer', 'pack', 'total']);
    const [image] = await readArchiveManifest(packed.archive);
    assert.deepEqual(image?.RepoTags, ['localhost/folder:test']);
    assert.equal(image?.Layers.length, 1);
    assert.equal(existsSync(work), false);
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /^localhost\/folder:test: .* MiB\) in .*total/);
  });
});

describe('the one-image build records', () => {
  it('name the cache folder under the cache root', () => {
    assert.equal(imageCacheDir('mpich-0123', { FLUX_OPERATOR_CACHE: '/cache' }), '/cache/images/mpich-0123');
  });

  it('come back from the cache without a build when their archive is there, and not when it is gone', async (t) => {
    const root = await tempDir(t);
    const dir = await recordedBuild(root, 'one');
    const build = (): Promise<ImageBuildRecord> => Promise.reject(new Error('built'));
    const options = { dir, what: 'the image', progress: () => undefined, env: process.env, build };
    assert.equal((await ensureImageBuild(options)).imageId, 'sha256:one');
    assert.equal(readImageBuild<ImageBuildRecord>(dir)?.key, 'one');
    await rm(path.join(dir, 'one.tar'));
    assert.equal(readImageBuild(dir), undefined);
  });

  it('make a set by name, without the build details, only when every one is built', async (t) => {
    const root = await tempDir(t);
    const dirs = { a: await recordedBuild(root, 'a'), b: await recordedBuild(root, 'b') };
    const expected = {
      a: { reference: 'localhost/a:1', archive: path.join(dirs.a, 'a.tar'), imageId: 'sha256:a' },
      b: { reference: 'localhost/b:1', archive: path.join(dirs.b, 'b.tar'), imageId: 'sha256:b' },
    };
    assert.deepEqual(
      cachedImageSet(['a', 'b'], (name) => dirs[name]),
      expected,
    );
    const ensured = await ensureImageSet(['a', 'b'], (name) =>
      ensureImageBuild({
        dir: dirs[name],
        what: name,
        progress: () => undefined,
        env: process.env,
        build: () => Promise.reject(new Error('built')),
      }),
    );
    assert.deepEqual(ensured, expected);
    assert.equal(
      cachedImageSet(['a', 'c'], (name) => path.join(root, name)),
      undefined,
    );
  });
});
