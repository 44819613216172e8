import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkQueue } from '../../../src/runtime/work-queue.ts';
import { eventually } from '../eventually.ts';

/** A promise the test resolves when it chooses: a handler waits on it to stay running meanwhile. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('WorkQueue', () => {
  it('runs a delayed key at the sooner of two delays (an event does not wait out a requeue)', async () => {
    const handled: string[] = [];
    const queue = new WorkQueue(async (key) => void handled.push(key), { concurrency: 1 });
    // The longer delays are beyond eventually's deadline: a run at either of them fails the test.
    queue.addAfter('a', 60_000);
    queue.addAfter('a', 20);
    queue.addAfter('a', 30_000); // later than the pending 20 ms: changes nothing
    await eventually(() => handled.length > 0, 'the run of a after 20 ms');
    assert.deepEqual(handled, ['a']);
    queue.stop();
  });

  it('handles a key added many times while waiting only once', async () => {
    const handled: string[] = [];
    const queue = new WorkQueue(
      async (key) => {
        handled.push(key);
        if (key === 'busy') await sleep(10);
      },
      { concurrency: 1 },
    );
    queue.add('busy'); // occupies the only worker, so the adds below wait in the queue
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.add('a');
    assert.equal(queue.depth, 2);
    await queue.idle();
    assert.deepEqual(handled, ['busy', 'a', 'b']);
  });

  it('never runs one key on two workers at once, and re-runs it when changed meanwhile', async () => {
    let concurrentForA = 0;
    let maxConcurrentForA = 0;
    let runs = 0;
    const firstPass = gate();
    const queue = new WorkQueue(
      async (key) => {
        if (key !== 'a') return;
        runs += 1;
        concurrentForA += 1;
        maxConcurrentForA = Math.max(maxConcurrentForA, concurrentForA);
        if (runs === 1) await firstPass.opened;
        concurrentForA -= 1;
      },
      { concurrency: 4 },
    );
    queue.add('a');
    await eventually(() => runs === 1, 'the first pass of a');
    queue.add('a'); // while the first pass runs
    queue.add('a');
    await sleep(20); // a free worker would have taken a by now
    assert.equal(runs, 1, 'a waits for its running pass');
    firstPass.open();
    await queue.idle();
    assert.equal(maxConcurrentForA, 1);
    assert.equal(runs, 2);
  });

  it('runs different keys in parallel up to the concurrency', async () => {
    let running = 0;
    let peak = 0;
    const queue = new WorkQueue(
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await sleep(15);
        running -= 1;
      },
      { concurrency: 3 },
    );
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) queue.add(key);
    await queue.idle();
    assert.equal(peak, 3);
  });

  it('retries a failing key with growing backoff and resets after success', async () => {
    const attempts: number[] = [];
    let calls = 0;
    const queue = new WorkQueue(
      async () => {
        calls += 1;
        if (calls < 4) throw new Error(`failure ${calls}`);
      },
      { concurrency: 1, baseDelayMs: 2, onError: (_key, _error, attempt) => attempts.push(attempt) },
    );
    queue.add('a');
    await queue.idle();
    assert.equal(calls, 4);
    assert.deepEqual(attempts, [1, 2, 3]);
    assert.deepEqual(
      [1, 2, 3, 30].map((attempt) => queue.backoffFor(attempt)),
      [2, 4, 8, 300_000],
    );
  });

  it('stops handing out keys after stop()', async () => {
    const handled: string[] = [];
    const queue = new WorkQueue(
      async (key) => {
        handled.push(key);
      },
      { concurrency: 1 },
    );
    queue.stop();
    queue.add('a');
    await queue.idle();
    assert.deepEqual(handled, []);
  });

  it("keeps a failing key on its backoff when its children's events add it, not when its spec does", async () => {
    const attempts: number[] = [];
    let failures = 0;
    const queue = new WorkQueue(
      async () => {
        attempts.push(Date.now());
        throw new Error('refused');
      },
      // A retry waits a minute: longer than any test's wait, however loaded the machine.
      { concurrency: 1, baseDelayMs: 60_000, onError: () => (failures += 1) },
    );
    queue.add('a');
    await eventually(() => failures === 1, 'the first failure of a');
    for (let i = 0; i < 10; i++) queue.add('a');
    await sleep(20);
    assert.equal(attempts.length, 1, 'events during the backoff do not retry it');
    queue.add('a', { bypassBackoff: true });
    await eventually(() => attempts.length === 2, 'a spec change to retry it');
    queue.stop();
  });

  it('retries every failing key at once when told the API server is back', async () => {
    let failing = true;
    const handled: string[] = [];
    let failures = 0;
    const queue = new WorkQueue(
      async (key) => {
        handled.push(key);
        if (failing) throw new Error('connection refused');
      },
      { concurrency: 2, baseDelayMs: 60_000, onError: () => (failures += 1) },
    );
    queue.add('a');
    queue.add('b');
    await eventually(
      () => failures === 2,
      () => `the failures of a and b (${failures})`,
    );
    assert.deepEqual(handled.sort(), ['a', 'b']);
    failing = false;
    queue.retryFailedNow();
    await queue.idle();
    assert.deepEqual(handled.sort(), ['a', 'a', 'b', 'b']);
  });

  it('does not run a failed key again at once for an add that came in while it ran', async () => {
    let runs = 0;
    let failures = 0;
    const pass = gate();
    const queue = new WorkQueue(
      async () => {
        runs += 1;
        await pass.opened;
        throw new Error('refused');
      },
      { concurrency: 1, baseDelayMs: 60_000, onError: () => (failures += 1) },
    );
    queue.add('a');
    await eventually(() => runs === 1, 'the pass of a');
    queue.add('a'); // a child's event while the pass runs
    pass.open();
    await eventually(() => failures === 1, 'the failure of the pass');
    await sleep(50);
    assert.equal(runs, 1);
    queue.stop();
  });
});
