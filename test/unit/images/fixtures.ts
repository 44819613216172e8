/** What the image recipe tests share: Debian 12's mirrors, the bash images' config, the key check. */
import assert from 'node:assert/strict';

/** Debian 12's archive, its updates and its security updates, as the recipes list them. */
export const BOOKWORM_MIRRORS = [
  'deb http://deb.debian.org/debian bookworm main',
  'deb http://deb.debian.org/debian bookworm-updates main',
  'deb http://deb.debian.org/debian-security bookworm-security main',
];

/** The config of the images that run bash as root: no user, Debian's PATH. */
export const BASH_IMAGE_CONFIG = {
  env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
  cmd: ['/bin/bash'],
};

/**
 * Asserts that `key` tells recipes apart: the recipe `fresh` makes, the `others`, and a copy of it per
 * change get distinct keys of 16 hex digits, and a second recipe from `fresh` gets the first one's key.
 */
export function assertDistinctKeys<R>(
  key: (recipe: R) => string,
  fresh: () => R,
  others: readonly R[],
  changes: readonly ((recipe: R) => void)[],
): void {
  const base = fresh();
  const changed = changes.map((change) => {
    const copy = structuredClone(base);
    change(copy);
    return copy;
  });
  const keys = [base, ...others, ...changed].map(key);
  assert.equal(new Set(keys).size, keys.length, keys.join(' '));
  for (const k of keys) assert.match(k, /^[0-9a-f]{16}$/);
  assert.equal(key(fresh()), key(base));
}
