import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEBIAN_IMAGE_FIXES,
  PLAIN_FIXES,
  PLAIN_SUITES,
  plainImageArgs,
  plainImageKey,
  plainImageRecipe,
} from '../../../workbench/src/images/index.ts';
import type { PlainImageRecipe } from '../../../workbench/src/images/index.ts';
import { assertDistinctKeys } from './fixtures.ts';

describe('plainImageRecipe', () => {
  it('names localhost/plain:<suite> for Debian 12 and 13, with bash, coreutils and base-files only', () => {
    assert.deepEqual(PLAIN_SUITES, ['bookworm', 'trixie']);
    for (const suite of PLAIN_SUITES) {
      const recipe = plainImageRecipe(suite);
      assert.equal(recipe.reference, `localhost/plain:${suite}`);
      assert.deepEqual(recipe.packages, ['bash', 'base-files', 'coreutils']);
      assert.deepEqual(recipe.config.cmd, ['/bin/bash']);
      // Each suite's own archive, its updates and its security updates, nothing of the other suite.
      assert.deepEqual(
        recipe.mirrors.map((m) => m.split(' ')[2]),
        [suite, `${suite}-updates`, `${suite}-security`],
      );
    }
  });
});

describe('plainImageArgs', () => {
  it('extracts the packages and their dependencies into a folder, /usr merged, without docs or translations', () => {
    const args = plainImageArgs(plainImageRecipe('trixie'), '/cache/images/work/rootfs');
    assert.deepEqual(args.slice(0, 5), [
      '--variant=extract',
      '--mode=root',
      '--format=directory',
      '--architectures=amd64',
      '--include=base-files,bash,coreutils',
    ]);
    assert.ok(args.includes('--setup-hook=/usr/share/mmdebstrap/hooks/merged-usr/setup00.sh'));
    assert.ok(args.includes('--dpkgopt=path-exclude=/usr/share/locale/*'));
    assert.ok(args.includes('--dpkgopt=path-include=/usr/share/doc/*/copyright'));
    // The extract variant runs no customize hook: the fixes are applied afterwards.
    assert.deepEqual(
      args.filter((a) => a.startsWith('--customize-hook')),
      [],
    );
    assert.deepEqual(args.slice(-5, -3), ['trixie', '/cache/images/work/rootfs']);
    assert.throws(
      () => plainImageArgs(plainImageRecipe('bookworm'), 'relative/out'),
      /output must be an absolute path/,
    );
  });

  it("leaves root alone in /etc/passwd and /etc/group (uid 1000 free), the runtime's files empty, apt's gone", () => {
    assert.equal(PLAIN_FIXES.write['etc/passwd'], 'root:x:0:0:root:/root:/bin/bash\n');
    assert.equal(PLAIN_FIXES.write['etc/group'], 'root:x:0:\n');
    assert.equal(PLAIN_FIXES.write['etc/hostname'], '');
    assert.equal(PLAIN_FIXES.write['etc/resolv.conf'], '');
    assert.deepEqual(PLAIN_FIXES.remove, DEBIAN_IMAGE_FIXES.remove);
    assert.deepEqual(PLAIN_FIXES.emptyDirs, ['dev']);
  });
});

describe('plainImageKey', () => {
  it('differs per suite and changes with the packages, a mirror or the revision', () => {
    assertDistinctKeys<PlainImageRecipe>(
      plainImageKey,
      () => plainImageRecipe('bookworm'),
      [plainImageRecipe('trixie')],
      [(r) => r.packages.push('dash'), (r) => r.mirrors.pop(), (r) => (r.revision += 1)],
    );
  });
});
