import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withExclusiveLock } from '../../../workbench/src/images/index.ts';
import { eventually } from '../eventually.ts';

describe('withExclusiveLock', () => {
  it('runs one holder at a time, tells the second it waits, and releases on errors', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lock-test-'));
    try {
      const lock = path.join(dir, 'sub', 'x.lock');
      const events: string[] = [];
      const first = withExclusiveLock(
        lock,
        () => events.push('first waits'),
        async () => {
          events.push('first in');
          // Holds the lock until the second has waited for it (its message comes after 300 ms).
          await eventually(() => events.includes('second waits'), 'the second to wait for the lock');
          events.push('first out');
          throw new Error('boom');
        },
      );
      await eventually(() => events.includes('first in'), 'the first to hold the lock');
      const second = withExclusiveLock(
        lock,
        () => events.push('second waits'),
        async () => {
          events.push('second in');
          return 42;
        },
      );
      await assert.rejects(first, /boom/);
      assert.equal(await second, 42);
      // The first is told it waits only when starting flock took over 300 ms (a loaded machine).
      assert.deepEqual(
        events.filter((event) => event !== 'first waits'),
        ['first in', 'second waits', 'first out', 'second in'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
