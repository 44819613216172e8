// Unit tests wait for what they expect to happen, never a fixed time: a fixed sleep fails when the
// machine is loaded (CI on two busy CPUs), a deadline only when the thing never happens.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Resolves as soon as `condition()` holds, checking every 5 ms; fails after `timeoutMs` naming `what`
 * did not happen (a function is called then, to name the state reached: `() => \`2 ticks (${ticks})\``).
 * The deadline is generous: a passing test waits only as long as the condition takes.
 */
export async function eventually(
  condition: () => boolean,
  what: string | (() => string),
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await sleep(5);
  }
}
