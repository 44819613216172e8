import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiServerRecovery } from '../../../src/runtime/api-server-recovery.ts';

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
    await sleep(80);
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
    await sleep(40);
    assert.equal(restarts, 0);
    assert.ok(calls.count >= 2, 'it keeps probing while a watch waits');
    recovery.stop();
  });

  it('stops probing when nothing waits any more', async () => {
    const { probe, calls } = scripted([false]);
    const recovery = new ApiServerRecovery({ probe, intervalMs: 5 });
    const cancel = recovery.wait(async () => undefined);
    await sleep(20);
    cancel();
    await sleep(10);
    const after = calls.count;
    await sleep(30);
    assert.equal(calls.count, after);
    assert.equal(recovery.serverAway, true);
    recovery.stop();
  });
});
