// The Flux images' flux-core is the view's build copied to another prefix of the same length, the prefix
// rewritten wherever it occurs (workbench/src/images/relocate.ts): text, binary content, links, modes
// and times.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { relocateTree, replaceSameLength } from '../../../workbench/src/images/index.ts';

describe('replaceSameLength', () => {
  it('replaces every occurrence in place, keeping the length; undefined when there is none', () => {
    const from = Buffer.from('/mnt/flux/view');
    const to = Buffer.from('/opt/flux-core');
    const data = Buffer.concat([
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0]),
      from,
      Buffer.from('/lib\0'),
      from,
      from,
      Buffer.from('/bin/python3\0'),
    ]);
    const out = replaceSameLength(data, from, to);
    assert.ok(out);
    assert.equal(out.length, data.length);
    assert.equal(out.indexOf(from), -1);
    assert.equal(out.toString('latin1').split('/opt/flux-core').length - 1, 3);
    assert.deepEqual(out.subarray(0, 5), data.subarray(0, 5));
    assert.equal(replaceSameLength(Buffer.from('nothing here'), from, to), undefined);
    assert.throws(() => replaceSameLength(data, from, Buffer.from('/opt/flux')), /same length/);
  });
});

describe('relocateTree', () => {
  it('copies a tree to the new prefix: contents and absolute links rewritten, relative links, modes and times kept', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'relocate-test-'));
    try {
      const src = path.join(dir, 'src');
      await mkdir(path.join(src, 'bin'), { recursive: true });
      await mkdir(path.join(src, 'lib', 'python3.11', 'site-packages', 'flux'), { recursive: true });
      await writeFile(
        path.join(src, 'bin', 'flux-python'),
        '#!/bin/sh\nexec /mnt/flux/view/bin/python3 "$@"\n',
      );
      await utimes(path.join(src, 'bin', 'flux-python'), 1_000_000, 1_000_000);
      await chmod(path.join(src, 'bin', 'flux-python'), 0o755);
      await writeFile(path.join(src, 'lib', 'data.bin'), Buffer.from([1, 2, 3, 0, 255]));
      await symlink('/mnt/flux/view/lib/python3.11/site-packages/flux', path.join(src, 'lib', 'flux'));
      await symlink('python3.11', path.join(src, 'lib', 'python3'));
      const target = path.join(dir, 'out', 'opt', 'flux-core');
      await mkdir(path.dirname(target), { recursive: true });
      const result = await relocateTree(src, target, '/mnt/flux/view', '/opt/flux-core');
      assert.deepEqual(result, { files: 2, rewritten: 2 });
      assert.equal(
        await readFile(path.join(target, 'bin', 'flux-python'), 'utf8'),
        '#!/bin/sh\nexec /opt/flux-core/bin/python3 "$@"\n',
      );
      const st = await stat(path.join(target, 'bin', 'flux-python'));
      assert.equal(st.mode & 0o7777, 0o755);
      assert.equal(st.mtimeMs, 1_000_000_000, 'times kept: byte code compiled from a file still matches it');
      assert.deepEqual(await readFile(path.join(target, 'lib', 'data.bin')), Buffer.from([1, 2, 3, 0, 255]));
      assert.equal(
        await readlink(path.join(target, 'lib', 'flux')),
        '/opt/flux-core/lib/python3.11/site-packages/flux',
      );
      assert.equal(await readlink(path.join(target, 'lib', 'python3')), 'python3.11');
      assert.ok((await lstat(path.join(target, 'lib', 'python3'))).isSymbolicLink());
      await assert.rejects(
        relocateTree(src, path.join(dir, 'other'), '/mnt/flux/view', '/opt/flux'),
        /same length/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
