// npm 11 skips dependencies' install scripts unless package.json's `allowScripts` approves them, and
// ends every install with a warning listing those it has no decision for. Each one gets a decision,
// so `npm ci` on a fresh clone is quiet and a new dependency with a script is a choice, not noise.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPOSITORY_ROOT } from '../../../hack/generate.ts';

const read = (path: string) => JSON.parse(readFileSync(join(REPOSITORY_ROOT, path), 'utf8')) as unknown;

describe('install scripts of the dependencies', () => {
  it("are each allowed or denied by name in package.json's allowScripts", () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    const { allowScripts } = read('package.json') as { allowScripts?: Record<string, boolean> };
    assert.deepEqual([...new Set(withScripts)].sort(), Object.keys(allowScripts ?? {}).sort());
  });
});
