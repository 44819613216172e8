import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PeriodicRunnable } from '../../../src/runtime/periodic.ts';

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
    runnable.start();
    runnable.start(); // a second start changes nothing
    await sleep(55);
    runnable.stop();
    assert.equal(starts, 1);
    assert.ok(ticks >= 1 && ticks <= 6, `at most one tick per 10 ms while running, got ${ticks}`);
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
    await sleep(50);
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
    await sleep(35);
    runnable.stop();
    assert.ok(ticks >= 2, `ticks went on after a failure (${ticks})`);
    assert.equal(failures.length, ticks);
    assert.equal(failures[0], 'orphan collection: API server away');
  });
});
