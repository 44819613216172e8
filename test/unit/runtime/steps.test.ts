import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONTINUE,
  continueAfter,
  restart,
  runSteps,
  stop,
  type Step,
  type BlockingProblem,
} from '../../../src/runtime/steps.ts';

/** A step that records its name (and the stop it saw) in the context when it runs. */
function step(
  name: string,
  result: ReturnType<Step<string[]>['run']>,
  options: { always?: boolean } = {},
): Step<string[]> {
  return {
    name,
    ...options,
    run: (ran, stopped) => {
      ran.push(stopped ? `${name} (after ${stopped.step}: ${stopped.problem.reason})` : name);
      return result;
    },
  };
}

function recorder() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const observed: [string, number][] = [];
  let time = 0;
  return {
    lines,
    observed,
    options: {
      log: {
        warn: (fields: Record<string, unknown>, message: string) =>
          lines.push({ level: 'warn', fields, message }),
        debug: (fields: Record<string, unknown>, message: string) =>
          lines.push({ level: 'debug', fields, message }),
      },
      observe: (name: string, seconds: number) => observed.push([name, seconds]),
      // Each reading 5 ms after the last: every step takes 5 ms.
      clock: () => (time += 5),
    },
  };
}

const MISSING: BlockingProblem = { reason: 'SecretMissing', message: 'Secret ns/x does not exist' };

describe('runSteps', () => {
  it('runs every step in order, timing each by name, and asks for the shortest delay any step asked for', async () => {
    const { observed, options } = recorder();
    const ran: string[] = [];
    const outcome = await runSteps(
      [
        step('a', CONTINUE),
        step('b', continueAfter(30_000)),
        step('c', Promise.resolve(continueAfter(10_000))),
      ],
      ran,
      options,
    );
    assert.deepEqual(ran, ['a', 'b', 'c']);
    assert.deepEqual(observed, [
      ['a', 0.005],
      ['b', 0.005],
      ['c', 0.005],
    ]);
    assert.deepEqual(outcome, { requeueAfterMs: 10_000 });
  });

  it('after a stop, runs only the steps marked always, which see the problem; logs it once with the step', async () => {
    const { lines, options } = recorder();
    const ran: string[] = [];
    const outcome = await runSteps(
      [
        step('validate', CONTINUE),
        step('secrets', stop(MISSING, 10_000)),
        step('apply', CONTINUE),
        step('status', continueAfter(4_000), { always: true }),
        step('cleanup', stop({ reason: 'Other', message: 'second' }), { always: true }),
      ],
      ran,
      options,
    );
    assert.deepEqual(ran, [
      'validate',
      'secrets',
      'status (after secrets: SecretMissing)',
      'cleanup (after secrets: SecretMissing)',
    ]);
    assert.deepEqual(outcome, { stopped: { step: 'secrets', problem: MISSING }, requeueAfterMs: 4_000 });
    const warnings = lines.filter((line) => line.level === 'warn');
    assert.deepEqual(warnings, [
      {
        level: 'warn',
        fields: { step: 'secrets', reason: 'SecretMissing', detail: 'Secret ns/x does not exist' },
        message: 'waiting',
      },
    ]);
  });

  it('ends the pass at a restart: no later step runs, not even those marked always', async () => {
    const { options } = recorder();
    const ran: string[] = [];
    const outcome = await runSteps(
      [
        step('keys', continueAfter(5_000)),
        step('apply', restart(0)),
        step('status', CONTINUE, { always: true }),
      ],
      ran,
      options,
    );
    assert.deepEqual(ran, ['keys', 'apply']);
    assert.deepEqual(outcome, { restartedBy: 'apply', requeueAfterMs: 0 });
  });

  it('times a step that throws, logs its name at debug, and throws its error as it is', async () => {
    const { lines, observed, options } = recorder();
    const error = new Error('unreachable');
    const failing: Step<string[]> = {
      name: 'apply',
      run: async () => {
        throw error;
      },
    };
    const ran: string[] = [];
    await assert.rejects(
      runSteps([step('render', CONTINUE), failing, step('status', CONTINUE)], ran, options),
      (e) => e === error,
    );
    assert.deepEqual(ran, ['render']);
    assert.deepEqual(
      observed.map(([name]) => name),
      ['render', 'apply'],
    );
    assert.deepEqual(lines.at(-1), {
      level: 'debug',
      fields: { step: 'apply', ms: 5 },
      message: 'step failed',
    });
  });

  it('needs no debug method on the log, nor an observer', async () => {
    const ran: string[] = [];
    const outcome = await runSteps([step('only', CONTINUE)], ran, { log: { warn: () => undefined } });
    assert.deepEqual([ran, outcome], [['only'], {}]);
  });
});
