import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withExclusiveLock } from '../../../src/images/index.ts';

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
          await sleep(700);
          events.push('first out');
          throw new Error('boom');
        },
      );
      await sleep(200);
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
      assert.deepEqual(events, ['first in', 'second waits', 'first out', 'second in']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
