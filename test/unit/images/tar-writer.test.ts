import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { archivePath, paxRecord } from '../../../workbench/src/images/tar-writer.ts';
import { writeDirectoryLayer, writeTar } from '../../../workbench/src/images/index.ts';

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'tar-writer-test-'));
}

/** `mode uid/gid size name[ -> target]` per entry, as GNU tar lists them. */
function listing(tar: string): string[] {
  return execFileSync('tar', ['--numeric-owner', '-tvf', tar], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => {
      const [mode, owner, size, , , ...rest] = line.split(/ +/);
      return `${mode} ${owner} ${size} ${rest.join(' ')}`;
    });
}

describe('writeTar', () => {
  it('writes what GNU tar reads back: owners, modes, long names and link targets through pax', async () => {
    const dir = tempDir();
    try {
      const long = `deep/${'d'.repeat(90)}/${'f'.repeat(60)}.txt`;
      const longTarget = `/${'t'.repeat(150)}`;
      const tar = path.join(dir, 'a.tar');
      await writeTar(tar, [
        { type: 'directory', path: 'deep', mode: 0o750, uid: 1000, gid: 1000 },
        { type: 'directory', path: `deep/${'d'.repeat(90)}`, mode: 0o755 },
        { type: 'file', path: long, mode: 0o600, uid: 5_000_000, gid: 7, data: 'long\n' },
        { type: 'symlink', path: 'deep/link', target: longTarget, mode: 0o777 },
        { type: 'hardlink', path: 'deep/hard', target: long, mode: 0o600 },
        { type: 'file', path: './run/x', mode: 0o4755, data: new Uint8Array([1, 2, 3]) },
      ]);
      assert.deepEqual(listing(tar), [
        'drwxr-x--- 1000/1000 0 deep/',
        `drwxr-xr-x 0/0 0 deep/${'d'.repeat(90)}/`,
        `-rw------- 5000000/7 5 ${long}`,
        `lrwxrwxrwx 0/0 0 deep/link -> ${longTarget}`,
        `hrw------- 0/0 0 deep/hard link to ${long}`,
        '-rwsr-xr-x 0/0 3 run/x',
      ]);
      const out = path.join(dir, 'x');
      mkdirSync(out);
      execFileSync('tar', ['-xf', tar, '-C', out, '--no-same-owner']);
      assert.equal(readFileSync(path.join(out, long), 'utf8'), 'long\n');
      assert.equal(readFileSync(path.join(out, 'deep/hard'), 'utf8'), 'long\n');
      assert.equal(readlinkSync(path.join(out, 'deep/link')), longTarget);
      // Two zero blocks end the archive; every entry is a whole number of blocks.
      assert.equal(readFileSync(tar).length % 512, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses paths that leave the archive root and leaves no partial file behind', async () => {
    const dir = tempDir();
    try {
      for (const bad of ['', '/', '../x', 'a/../b', 'a//b']) {
        assert.throws(() => archivePath(bad), /invalid path/, bad);
      }
      const tar = path.join(dir, 'bad.tar');
      await assert.rejects(
        writeTar(tar, [{ type: 'file', path: 'x/../../y', mode: 0o644, data: '' }]),
        /invalid path/,
      );
      assert.deepEqual(
        execFileSync('ls', ['-A', dir], { encoding: 'utf8' }).trim(),
        '',
        'no bad.tar and no bad.tar.partial-*',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts the length digits of a pax record in its length', () => {
    assert.equal(paxRecord('path', 'abc').toString(), '12 path=abc\n');
    const r = paxRecord('path', 'x'.repeat(91)).toString();
    assert.equal(r.length, Number(r.split(' ')[0]));
    assert.equal(r.length, 101, 'the length grows from 2 to 3 digits');
  });
});

describe('writeDirectoryLayer', () => {
  function tree(dir: string): string {
    const src = path.join(dir, 'src');
    mkdirSync(path.join(src, 'bin'), { recursive: true });
    mkdirSync(path.join(src, 'lib', 'node_modules', '.bin'), { recursive: true });
    writeFileSync(path.join(src, 'bin', 'tool'), '#!/bin/sh\n');
    chmodSync(path.join(src, 'bin', 'tool'), 0o700);
    writeFileSync(path.join(src, 'lib', 'b.js'), 'b');
    writeFileSync(path.join(src, 'lib', 'a.js'), 'a');
    chmodSync(path.join(src, 'lib', 'a.js'), 0o600);
    linkSync(path.join(src, 'lib', 'a.js'), path.join(src, 'lib', 'z.js'));
    symlinkSync('../../b.js', path.join(src, 'lib', 'node_modules', '.bin', 'b'));
    return src;
  }

  it('puts the folder under a prefix, owned by the given ids, in name order, modes normalised', async () => {
    const dir = tempDir();
    try {
      const src = tree(dir);
      const layer = path.join(dir, 'layer.tar');
      await writeDirectoryLayer({
        directory: src,
        output: layer,
        prefix: 'opt/app',
        owner: { uid: 1000, gid: 1000 },
        modes: 'normalize',
      });
      assert.deepEqual(listing(layer), [
        'drwxr-xr-x 0/0 0 opt/',
        'drwxr-xr-x 1000/1000 0 opt/app/',
        'drwxr-xr-x 1000/1000 0 opt/app/bin/',
        '-rwxr-xr-x 1000/1000 10 opt/app/bin/tool',
        'drwxr-xr-x 1000/1000 0 opt/app/lib/',
        '-rw-r--r-- 1000/1000 1 opt/app/lib/a.js',
        '-rw-r--r-- 1000/1000 1 opt/app/lib/b.js',
        'drwxr-xr-x 1000/1000 0 opt/app/lib/node_modules/',
        'drwxr-xr-x 1000/1000 0 opt/app/lib/node_modules/.bin/',
        'lrwxrwxrwx 1000/1000 0 opt/app/lib/node_modules/.bin/b -> ../../b.js',
        'hrw-r--r-- 1000/1000 0 opt/app/lib/z.js link to opt/app/lib/a.js',
      ]);
      const again = path.join(dir, 'again.tar');
      await writeDirectoryLayer({
        directory: src,
        output: again,
        prefix: 'opt/app',
        owner: { uid: 1000, gid: 1000 },
        modes: 'normalize',
      });
      assert.ok(readFileSync(layer).equals(readFileSync(again)), 'same folder, same bytes');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('owns everything by root and keeps modes by default, with the folder as the layer root', async () => {
    const dir = tempDir();
    try {
      const src = tree(dir);
      const layer = path.join(dir, 'layer.tar');
      await writeDirectoryLayer({ directory: src, output: layer });
      const lines = listing(layer);
      assert.equal(lines[0], 'drwxr-xr-x 0/0 0 bin/');
      assert.ok(lines.includes('-rwx------ 0/0 10 bin/tool'));
      assert.ok(lines.includes('-rw------- 0/0 1 lib/a.js'));
      assert.ok(lines.every((l) => l.split(' ')[1] === '0/0'));
      await assert.rejects(
        writeDirectoryLayer({ directory: path.join(src, 'lib', 'a.js'), output: layer }),
        /not a folder/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
