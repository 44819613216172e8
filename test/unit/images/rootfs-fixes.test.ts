import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEBIAN_IMAGE_FIXES, applyRootfsFixes } from '../../../workbench/src/images/index.ts';

describe('applyRootfsFixes', () => {
  it('removes paths (folders with their files, missing ones too), empties folders, then writes files 0644', async (t) => {
    const root = await mkdtemp(path.join(tmpdir(), 'rootfs-fixes-'));
    t.after(() => rm(root, { recursive: true, force: true }));
    await mkdir(path.join(root, 'etc/apt/sources.list.d'), { recursive: true });
    await writeFile(
      path.join(root, 'etc/apt/sources.list'),
      'deb http://deb.debian.org/debian bookworm main\n',
    );
    await mkdir(path.join(root, 'dev/pts'), { recursive: true });
    await writeFile(path.join(root, 'dev/null'), '');
    await writeFile(path.join(root, 'etc/hostname'), 'build-machine\n', { mode: 0o600 });

    await applyRootfsFixes(root, {
      write: { 'etc/hostname': '', 'etc/resolv.conf': '' },
      remove: ['etc/apt', 'var/lib/apt'],
      emptyDirs: ['dev'],
    });

    assert.equal(existsSync(path.join(root, 'etc/apt')), false);
    assert.deepEqual(await readdir(path.join(root, 'dev')), []);
    assert.deepEqual((await readdir(path.join(root, 'etc'))).sort(), ['hostname', 'resolv.conf']);
    for (const file of ['etc/hostname', 'etc/resolv.conf']) {
      assert.equal(await readFile(path.join(root, file), 'utf8'), '');
      assert.equal((await stat(path.join(root, file))).mode & 0o777, 0o644 & ~process.umask());
    }
  });
});

describe('DEBIAN_IMAGE_FIXES', () => {
  it("drops apt's leftovers, mmdebstrap's dpkg options and the device nodes; the runtime's files are empty", () => {
    assert.deepEqual(DEBIAN_IMAGE_FIXES, {
      write: { 'etc/hostname': '', 'etc/resolv.conf': '' },
      remove: ['etc/apt', 'var/lib/apt', 'var/cache/apt', 'etc/dpkg/dpkg.cfg.d/99mmdebstrap'],
      emptyDirs: ['dev'],
    });
  });
});
