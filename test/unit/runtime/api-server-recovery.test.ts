import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiServerRecovery } from '../../../src/runtime/api-server-recovery.ts';
import { eventually } from '../eventually.ts';

/** A probe answering from a script of readiness values, the last one repeated. */
function scripted(answers: boolean[]) {
  const calls = { count: 0 };
  const probe = () => {
    const answer = answers[Math.min(calls.count, answers.length - 1)] ?? false;
    calls.count += 1;
    return Promise.resolve(answer);
  };
  return { probe, calls };
}

describe('ApiServerRecovery', () => {
  it('restarts every waiting watch once the server turns ready after an outage, then resyncs', async () => {
    const { probe } = scripted([false, false, true]);
    const events: string[] = [];
    const recovery = new ApiServerRecovery({
      probe,
      intervalMs: 5,
      jitterMs: 5,
      onOutage: (event) => events.push(event),
      onRecovered: () => events.push('resync'),
    });
    const restarted: string[] = [];
    recovery.wait(async () => {
      restarted.push('jobs');
    });
    recovery.wait(async () => {
      restarted.push('pods');
    });
    await eventually(
      () => events.includes('resync'),
      () => `the resync (events: ${events.join(', ')})`,
    );
    assert.deepEqual(restarted.sort(), ['jobs', 'pods']);
    assert.deepEqual(events, ['away', 'back', 'resync']);
    assert.equal(recovery.serverAway, false);
    recovery.stop();
  });

  it('leaves watches to their own backoff when the server was never away (a refused watch)', async () => {
    const { probe, calls } = scripted([true]);
    const recovery = new ApiServerRecovery({ probe, intervalMs: 5 });
    let restarts = 0;
    recovery.wait(async () => {
      restarts += 1;
    });
    // Three probes called: the first two have answered (ready) and been acted on.
    await eventually(
      () => calls.count >= 3,
      () => `it keeps probing while a watch waits (${calls.count} probes)`,
    );
    assert.equal(restarts, 0);
    recovery.stop();
  });

  it('stops probing when nothing waits any more and the server is not away', async () => {
    const { probe, calls } = scripted([true]);
    const recovery = new ApiServerRecovery({ probe, intervalMs: 5 });
    const cancel = recovery.wait(async () => undefined);
    await eventually(
      () => calls.count >= 3,
      () => `probing while a watch waits (${calls.count} probes)`,
    );
    const atCancel = calls.count;
    cancel();
    await sleep(50); // ten intervals
    // The probe already scheduled (or answering) at the cancel may still run; none after it.
    assert.ok(calls.count <= atCancel + 1, `${calls.count - atCancel} probes after the cancel`);
    assert.equal(recovery.serverAway, false);
    recovery.stop();
  });

  it('sees the outage end even when every watch restarted by its own timer first', async () => {
    // Away for the first five probes, then ready: the watch takes itself back while the server is away.
    const { probe, calls } = scripted([false, false, false, false, false, true]);
    const events: string[] = [];
    const recovery = new ApiServerRecovery({
      probe,
      intervalMs: 5,
      onOutage: (event) => events.push(event),
      onRecovered: () => events.push('resync'),
    });
    let restarts = 0;
    const cancel = recovery.wait(async () => {
      restarts += 1;
    });
    await eventually(
      () => recovery.serverAway,
      () => `the outage seen (${calls.count} probes)`,
    );
    cancel();
    await eventually(
      () => events.includes('resync'),
      () => `the end of the outage seen (events: ${events.join(', ')}; ${calls.count} probes)`,
    );
    assert.deepEqual(events, ['away', 'back', 'resync']);
    assert.equal(recovery.serverAway, false);
    assert.equal(restarts, 0, 'the watch that restarted by itself is not restarted again');
    // Back and nothing waiting: probing ends.
    const atBack = calls.count;
    await sleep(50);
    assert.ok(calls.count <= atBack + 1, `${calls.count - atBack} probes after the end of the outage`);
    recovery.stop();
  });
});
