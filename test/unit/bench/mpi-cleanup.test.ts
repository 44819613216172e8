import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { orAbort, withCleanUp } from '../../bench/mpi-cleanup.ts';

describe('withCleanUp', () => {
  it('cleans up after the work and resolves with its result', async () => {
    const steps: string[] = [];
    const result = await withCleanUp(
      async () => {
        steps.push('work');
        return 7;
      },
      async () => {
        steps.push('clean');
      },
    );
    assert.equal(result, 7);
    assert.deepEqual(steps, ['work', 'clean']);
  });

  it("cleans up after a failed work and throws the work's error", async () => {
    const steps: string[] = [];
    await assert.rejects(
      withCleanUp(
        async () => {
          throw new Error('the pod failed');
        },
        async () => {
          steps.push('clean');
        },
      ),
      /^Error: the pod failed$/,
    );
    assert.deepEqual(steps, ['clean']);
  });

  it("says a failed clean-up after a failed work in the work's error", async () => {
    await assert.rejects(
      withCleanUp(
        async () => {
          throw new Error('the pod failed');
        },
        async () => {
          throw new Error('no answer');
        },
      ),
      (error: Error) => error.message === 'the pod failed\n(then cleaning up failed too: Error: no answer)',
    );
  });

  it('throws a failed clean-up after a work that succeeded', async () => {
    await assert.rejects(
      withCleanUp(
        async () => 1,
        async () => {
          throw new Error('no answer');
        },
      ),
      /^Error: no answer$/,
    );
  });
});

describe('orAbort', () => {
  it('is the promise while the signal is not aborted', async () => {
    assert.equal(await orAbort(new AbortController().signal, Promise.resolve('done')), 'done');
  });

  it('rejects with the reason once aborted, without waiting for the promise', async () => {
    const abort = new AbortController();
    const never = new Promise<never>(() => undefined);
    const waiting = orAbort(abort.signal, never);
    abort.abort('SIGINT');
    await assert.rejects(waiting, (reason: unknown) => reason === 'SIGINT');
    await assert.rejects(orAbort(abort.signal, Promise.resolve(1)), (reason: unknown) => reason === 'SIGINT');
  });
});
