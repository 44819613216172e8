import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { MUNGE_KEY_BYTES, mungeKey } from '../../../src/flux/munge-key.ts';

describe('mungeKey', () => {
  it('is 1024 bytes from the injected source', () => {
    const requested: number[] = [];
    const key = mungeKey((size) => {
      requested.push(size);
      return new Uint8Array(size).fill(7);
    });
    assert.deepEqual(requested, [1024]);
    assert.equal(MUNGE_KEY_BYTES, 1024);
    assert.equal(key.length, 1024);
    assert.ok(key.every((byte) => byte === 7));
  });

  it('differs between calls with a random source', () => {
    const first = mungeKey(randomBytes);
    const second = mungeKey(randomBytes);
    assert.equal(first.length, 1024);
    assert.notDeepEqual(first, second);
  });

  it('does not share the source buffer', () => {
    const source = new Uint8Array(1024);
    const key = mungeKey(() => source);
    source[0] = 1;
    assert.equal(key[0], 0);
  });

  it('rejects a source returning the wrong length', () => {
    assert.throws(() => mungeKey(() => new Uint8Array(16)), /returned 16 bytes, expected 1024/);
  });
});
