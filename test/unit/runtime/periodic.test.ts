import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PeriodicRunnable } from '../../../src/runtime/periodic.ts';
import { eventually } from '../eventually.ts';

describe('PeriodicRunnable', () => {
  it('runs every interval only between start() and stop(), and once on each start', async () => {
    let ticks = 0;
    let starts = 0;
    const runnable = new PeriodicRunnable({
      intervalMs: 10,
      onInterval: () => (ticks += 1),
      onStart: () => (starts += 1),
      onError: () => assert.fail('no task fails'),
    });
    await sleep(40);
    assert.equal(ticks, 0, 'nothing before start()');
    const startedAt = Date.now();
    runnable.start();
    runnable.start(); // a second start changes nothing
    await eventually(
      () => ticks >= 3,
      () => `3 ticks while running (${ticks})`,
    );
    runnable.stop();
    const ranMs = Date.now() - startedAt;
    assert.equal(starts, 1);
    assert.ok(ticks <= Math.floor(ranMs / 10) + 1, `at most one tick per 10 ms: ${ticks} in ${ranMs} ms`);
    const stoppedAt = ticks;
    await sleep(40);
    assert.equal(ticks, stoppedAt, 'no tick after stop()');
    assert.equal(runnable.running, false);
  });

  it('folds a burst of soon() calls into one run, and drops pending runs on stop()', async () => {
    const runs: string[] = [];
    const runnable = new PeriodicRunnable({
      intervalMs: 60_000,
      onInterval: () => undefined,
      onError: () => undefined,
    });
    const task = (name: string) => async () => void runs.push(name);
    runnable.soon('volumes', 20, task('volumes'));
    assert.equal(runnable.running, false);
    await sleep(40);
    assert.deepEqual(runs, [], 'soon() does nothing while stopped');

    runnable.start();
    for (let i = 0; i < 5; i += 1) runnable.soon('volumes', 20, task('volumes'));
    runnable.soon('orphans', 20, task('orphans'));
    await eventually(
      () => runs.length >= 2,
      () => `the runs of both tasks (${runs.join(', ')})`,
    );
    await sleep(40); // two more delays: a second run of volumes would have come
    assert.deepEqual(runs.sort(), ['orphans', 'volumes'], 'one run per task name');

    runnable.soon('volumes', 20, task('volumes'));
    runnable.stop();
    await sleep(40);
    assert.deepEqual(runs.sort(), ['orphans', 'volumes'], 'a run pending at stop() never happens');
  });

  it('reports a failed task by name and keeps running', async () => {
    const failures: string[] = [];
    let ticks = 0;
    const runnable = new PeriodicRunnable({
      intervalMs: 10,
      onInterval: () => {
        ticks += 1;
        runnable.run('orphan collection', () => Promise.reject(new Error('API server away')));
      },
      onError: (task, error) => failures.push(`${task}: ${(error as Error).message}`),
    });
    runnable.start();
    await eventually(
      () => ticks >= 2,
      () => `ticks to go on after a failure (${ticks})`,
    );
    runnable.stop();
    // Stopped: no tick comes between the count and the comparison. Each tick's failure is reported
    // before the next timer runs, so every tick so far has reported its own.
    assert.equal(failures.length, ticks);
    assert.equal(failures[0], 'orphan collection: API server away');
  });
});
