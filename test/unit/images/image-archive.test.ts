import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  canonicalJson,
  checkReference,
  imageConfigJson,
  writeImageArchive,
  writeTar,
} from '../../../workbench/src/images/index.ts';
import type { ImageArchiveOptions } from '../../../workbench/src/images/index.ts';

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'image-archive-test-'));
}

function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

async function twoLayers(dir: string): Promise<[string, string]> {
  const bottom = path.join(dir, 'bottom.tar');
  const top = path.join(dir, 'top.tar');
  await writeTar(bottom, [
    { type: 'directory', path: 'etc', mode: 0o755 },
    { type: 'file', path: 'etc/os-release', mode: 0o644, data: 'ID=test\n' },
    // Bigger than the writer's 1 MiB chunk, so the streamed copy crosses chunk boundaries.
    { type: 'file', path: 'big', mode: 0o644, data: Buffer.alloc(3 * 1024 * 1024 + 17, 7) },
  ]);
  await writeTar(top, [
    { type: 'directory', path: 'app', mode: 0o755, uid: 1000, gid: 1000 },
    { type: 'file', path: 'app/run', mode: 0o755, uid: 1000, gid: 1000, data: '#!/bin/sh\necho hi\n' },
  ]);
  return [bottom, top];
}

const config = {
  entrypoint: ['/app/run'],
  cmd: ['--serve'],
  env: ['PATH=/usr/bin:/bin', 'MODE=test'],
  user: '1000',
  workingDir: '/app',
  exposedPorts: ['8080/tcp', '9090'],
  labels: { 'org.opencontainers.image.title': 'test', a: 'b' },
};

describe('writeImageArchive', () => {
  it('writes manifest.json, the config and each layer, with diff_ids the sha256 of the layer files', async () => {
    const dir = tempDir();
    try {
      const [bottom, top] = await twoLayers(dir);
      const output = path.join(dir, 'out', 'image.tar');
      const created = new Date('2024-01-02T03:04:05Z');
      const res = await writeImageArchive({
        reference: 'localhost/test:1.0',
        layers: [bottom, top],
        config,
        output,
        created,
      });
      assert.equal(res.output, output);

      const unpacked = path.join(dir, 'unpacked');
      mkdirSync(unpacked);
      execFileSync('tar', ['-xf', output, '-C', unpacked]);
      const [bottomHex, topHex] = [sha256Of(bottom), sha256Of(top)];
      const configPath = path.join(unpacked, 'blobs', 'sha256', res.imageId.replace('sha256:', ''));
      assert.equal(`sha256:${sha256Of(configPath)}`, res.imageId);

      const listing = execFileSync('tar', ['-tf', output], { encoding: 'utf8' }).trim().split('\n');
      assert.deepEqual(listing, [
        'manifest.json',
        'blobs/',
        'blobs/sha256/',
        `blobs/sha256/${res.imageId.replace('sha256:', '')}`,
        `blobs/sha256/${bottomHex}`,
        `blobs/sha256/${topHex}`,
      ]);

      assert.deepEqual(JSON.parse(readFileSync(path.join(unpacked, 'manifest.json'), 'utf8')), [
        {
          Config: `blobs/sha256/${res.imageId.replace('sha256:', '')}`,
          RepoTags: ['localhost/test:1.0'],
          Layers: [`blobs/sha256/${bottomHex}`, `blobs/sha256/${topHex}`],
        },
      ]);
      const configText = readFileSync(configPath, 'utf8');
      assert.deepEqual(JSON.parse(configText), {
        architecture: 'amd64',
        os: 'linux',
        created: '2024-01-02T03:04:05Z',
        config: {
          Entrypoint: ['/app/run'],
          Cmd: ['--serve'],
          Env: ['PATH=/usr/bin:/bin', 'MODE=test'],
          User: '1000',
          WorkingDir: '/app',
          ExposedPorts: { '8080/tcp': {}, '9090/tcp': {} },
          Labels: { a: 'b', 'org.opencontainers.image.title': 'test' },
        },
        rootfs: { type: 'layers', diff_ids: [`sha256:${bottomHex}`, `sha256:${topHex}`] },
        history: [
          { created: '2024-01-02T03:04:05Z', created_by: 'layer 1' },
          { created: '2024-01-02T03:04:05Z', created_by: 'layer 2' },
        ],
      });
      assert.equal(configText, canonicalJson(JSON.parse(configText)), 'keys sorted, no white space');

      // The layers are stored byte for byte.
      assert.equal(sha256Of(path.join(unpacked, 'blobs', 'sha256', bottomHex)), bottomHex);
      assert.equal(sha256Of(path.join(unpacked, 'blobs', 'sha256', topHex)), topHex);
      // Entries are owned by root with a fixed mtime.
      const verbose = execFileSync('tar', ['--numeric-owner', '--full-time', '-tvf', output], {
        encoding: 'utf8',
      });
      for (const line of verbose.trim().split('\n')) {
        assert.match(line, /^[-d]rw[-x]r-[-x]r-[-x] 0\/0 +\d+ 2024-01-02 03:04:05 /, line);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the same bytes for the same inputs, and a new image id for a new creation time', async () => {
    const dir = tempDir();
    try {
      const layers = await twoLayers(dir);
      const options = (output: string): ImageArchiveOptions => ({
        reference: 'localhost/test:1.0',
        layers,
        config,
        output: path.join(dir, output),
      });
      const a = await writeImageArchive(options('a.tar'));
      const b = await writeImageArchive(options('b.tar'));
      assert.equal(a.imageId, b.imageId);
      assert.ok(readFileSync(a.output).equals(readFileSync(b.output)));
      const later = await writeImageArchive({ ...options('c.tar'), created: new Date(86_400_000) });
      assert.notEqual(later.imageId, a.imageId);
      const parsed = JSON.parse(
        execFileSync('tar', ['-xOf', a.output, `blobs/sha256/${a.imageId.slice(7)}`], {
          encoding: 'utf8',
        }),
      ) as { created: string };
      assert.equal(parsed.created, '1970-01-01T00:00:00Z');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores a layer used twice once and lists it twice', async () => {
    const dir = tempDir();
    try {
      const [bottom] = await twoLayers(dir);
      const res = await writeImageArchive({
        reference: 'localhost/twice:1',
        layers: [bottom, bottom],
        config: {},
        output: path.join(dir, 'twice.tar'),
        history: ['base', 'base again'],
      });
      const hex = sha256Of(bottom);
      const listing = execFileSync('tar', ['-tf', res.output], { encoding: 'utf8' }).trim().split('\n');
      assert.equal(listing.filter((l) => l === `blobs/sha256/${hex}`).length, 1);
      const manifest = JSON.parse(
        execFileSync('tar', ['-xOf', res.output, 'manifest.json'], { encoding: 'utf8' }),
      );
      assert.deepEqual(manifest[0].Layers, [`blobs/sha256/${hex}`, `blobs/sha256/${hex}`]);
      const cfg = JSON.parse(
        execFileSync('tar', ['-xOf', res.output, `blobs/sha256/${res.imageId.slice(7)}`], {
          encoding: 'utf8',
        }),
      );
      assert.deepEqual(cfg.config, {});
      assert.deepEqual(
        cfg.history.map((h: { created_by: string }) => h.created_by),
        ['base', 'base again'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad input before writing anything', async () => {
    const dir = tempDir();
    try {
      const [bottom] = await twoLayers(dir);
      const output = path.join(dir, 'bad.tar');
      await assert.rejects(
        writeImageArchive({ reference: 'localhost/Flux:1', layers: [bottom], config: {}, output }),
        /invalid image reference/,
      );
      await assert.rejects(
        writeImageArchive({ reference: 'localhost/flux:1', layers: [], config: {}, output }),
        /at least one layer/,
      );
      await assert.rejects(
        writeImageArchive({
          reference: 'localhost/flux:1',
          layers: [path.join(dir, 'missing.tar')],
          config: {},
          output,
        }),
        /ENOENT/,
      );
      assert.throws(() => readFileSync(output), /ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('checkReference', () => {
  it('accepts name:tag references with an optional host and port', () => {
    for (const ok of [
      'localhost/flux:0.88.0',
      'localhost/flux:0.88.0-awkward',
      'registry.k8s.io/pause:3.10',
      'localhost:5000/a/b_c:v1',
      'busybox:1',
    ]) {
      assert.equal(checkReference(ok), ok);
    }
  });

  it('refuses references without a tag, with upper case or with a digest', () => {
    for (const bad of [
      'localhost/flux',
      'localhost/Flux:1',
      'localhost/flux@sha256:abc',
      '/flux:1',
      'flux:',
      'flux:-x',
    ]) {
      assert.throws(() => checkReference(bad), /invalid image reference/, bad);
    }
  });
});

describe('imageConfigJson', () => {
  it('leaves out what is not set and refuses bad ports and environment lines', () => {
    assert.equal(
      imageConfigJson({ cmd: ['/bin/bash'] }, ['sha256:00']),
      '{"architecture":"amd64","config":{"Cmd":["/bin/bash"]},"created":"1970-01-01T00:00:00Z",' +
        '"history":[{"created":"1970-01-01T00:00:00Z","created_by":"layer 1"}],"os":"linux",' +
        '"rootfs":{"diff_ids":["sha256:00"],"type":"layers"}}',
    );
    assert.throws(() => imageConfigJson({ exposedPorts: ['http'] }, []), /invalid exposed port/);
    assert.throws(() => imageConfigJson({ env: ['PATH'] }, []), /invalid environment line/);
    assert.throws(() => imageConfigJson({}, ['sha256:00'], new Date(0), []), /history has 0 entries/);
  });
});
