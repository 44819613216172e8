import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stopNamespaceUsers, usesNamespace } from '../../harness/namespace-users.ts';

describe('what uses a test namespace is stopped even when the namespace is not deleted', () => {
  it('stops each user of the namespace once, whoever asks first, and only that namespace', async () => {
    const stopped: string[] = [];
    const first = usesNamespace('ns-a', async () => {
      stopped.push('first');
    });
    usesNamespace('ns-a', async () => {
      stopped.push('second');
    });
    usesNamespace('ns-b', async () => {
      stopped.push('other');
    });
    await first();
    assert.equal(await stopNamespaceUsers('ns-a'), 0);
    assert.deepEqual(stopped.sort(), ['first', 'second']);
    await first();
    assert.equal(await stopNamespaceUsers('ns-a'), 0);
    assert.deepEqual(stopped.sort(), ['first', 'second']);
    assert.equal(await stopNamespaceUsers('ns-b'), 0);
    assert.deepEqual(stopped.sort(), ['first', 'other', 'second']);
  });

  it('counts a stop that hangs past the bound, and one that throws does not stop the others', async () => {
    let laterStopped = false;
    usesNamespace('ns-c', () => new Promise<void>(() => undefined));
    usesNamespace('ns-c', () => Promise.reject(new Error('refused')));
    usesNamespace('ns-c', async () => {
      laterStopped = true;
    });
    assert.equal(await stopNamespaceUsers('ns-c', 50), 1);
    assert.equal(laterStopped, true);
  });
});
