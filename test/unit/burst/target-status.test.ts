import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  burstTargetStatus,
  nextCheckDelayMs,
  targetStatusChanged,
  targetTransitionEvents,
  type CheckOutcome,
} from '../../../src/burst/target-status.ts';

const T0 = new Date('2026-01-01T00:00:00.123Z');
const T1 = new Date('2026-01-01T00:01:00Z');
const connected: CheckOutcome = {
  ok: true,
  server: 'https://remote:6443',
  version: 'v1.35.4',
  namespace: 'burst',
};
const unauthorized: CheckOutcome = { ok: false, reason: 'Unauthorized', message: 'rejected the credentials' };
const missing: CheckOutcome = { ok: false, reason: 'SecretMissing', message: 'Secret a/b does not exist' };

describe('burstTargetStatus', () => {
  it('Connected=True with server, version and lastConnectedTime', () => {
    const status = burstTargetStatus({ generation: 3, previous: undefined, outcome: connected, now: T0 });
    assert.deepEqual(status, {
      conditions: [
        {
          type: 'Connected',
          status: 'True',
          reason: 'Connected',
          message:
            'connected to https://remote:6443 (Kubernetes v1.35.4); burst MiniClusters go to namespace burst',
          lastTransitionTime: '2026-01-01T00:00:00Z',
          observedGeneration: 3,
        },
      ],
      observedGeneration: 3,
      server: 'https://remote:6443',
      kubernetesVersion: 'v1.35.4',
      lastConnectedTime: '2026-01-01T00:00:00Z',
    });
  });

  it('a failure keeps where the target was last reached and moves the transition time', () => {
    const before = burstTargetStatus({ generation: 1, previous: undefined, outcome: connected, now: T0 });
    const after = burstTargetStatus({ generation: 1, previous: before, outcome: unauthorized, now: T1 });
    const condition = after.conditions?.[0];
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'Unauthorized');
    assert.equal(condition?.lastTransitionTime, '2026-01-01T00:01:00Z');
    assert.equal(after.server, 'https://remote:6443');
    assert.equal(after.lastConnectedTime, '2026-01-01T00:00:00Z');
  });

  it('keeps lastTransitionTime while the status holds, even when the reason changes', () => {
    const first = burstTargetStatus({ generation: 1, previous: undefined, outcome: missing, now: T0 });
    const second = burstTargetStatus({ generation: 1, previous: first, outcome: unauthorized, now: T1 });
    assert.equal(second.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(targetStatusChanged(first, second), true);
    const same = burstTargetStatus({ generation: 1, previous: second, outcome: unauthorized, now: T1 });
    assert.equal(targetStatusChanged(second, same), false);
  });
});

describe('targetTransitionEvents', () => {
  const status = (outcome: CheckOutcome, previous?: ReturnType<typeof burstTargetStatus>) =>
    burstTargetStatus({ generation: 1, previous, outcome, now: T0 });

  it('Normal Connected when it becomes connected, nothing while it stays', () => {
    const up = status(connected);
    assert.deepEqual(targetTransitionEvents(undefined, up), [
      { type: 'Normal', reason: 'Connected', note: up.conditions?.[0]?.message },
    ]);
    assert.deepEqual(targetTransitionEvents(up, status(connected, up)), []);
  });

  it('one Warning per new failure reason, not one per retry', () => {
    const down = status(missing);
    assert.deepEqual(targetTransitionEvents(undefined, down), [
      { type: 'Warning', reason: 'SecretMissing', note: 'Secret a/b does not exist' },
    ]);
    assert.deepEqual(targetTransitionEvents(down, status(missing, down)), []);
    assert.equal(targetTransitionEvents(down, status(unauthorized, down))[0]?.reason, 'Unauthorized');
  });
});

describe('nextCheckDelayMs', () => {
  it('re-checks a healthy target every minute; backs off 5 s, 10 s, ... up to 5 min', () => {
    assert.equal(nextCheckDelayMs(0), 60_000);
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 100].map((failures) => nextCheckDelayMs(failures)),
      [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000],
    );
    assert.equal(nextCheckDelayMs(3, { recheckMs: 1, initialBackoffMs: 100, maxBackoffMs: 250 }), 250);
  });
});
