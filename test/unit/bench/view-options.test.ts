import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseViewOptions, viewRunOrder } from '../../bench/view-options.ts';

describe('npm run bench -- --view flags', () => {
  it('defaults to 3 rounds and a 300 s wait per MiniCluster', () => {
    assert.deepEqual(parseViewOptions(['--view']), { rounds: 3, timeoutSeconds: 300 });
  });

  it('takes --rounds and --timeout-seconds, in any order', () => {
    assert.deepEqual(parseViewOptions(['--timeout-seconds', '90', '--view', '--rounds', '5']), {
      rounds: 5,
      timeoutSeconds: 90,
    });
  });

  it('refuses a value that is not a whole number of at least 1, naming the flag', () => {
    for (const value of ['0', '-2', '1.5', 'three', '']) {
      assert.throws(
        () => parseViewOptions(['--view', '--rounds', value]),
        new RegExp(`^Error: --rounds takes a whole number of at least 1, not ${JSON.stringify(value)}`),
      );
    }
    assert.throws(() => parseViewOptions(['--view', '--timeout-seconds']), /--timeout-seconds takes/);
  });

  it('refuses an unknown flag with the usage', () => {
    assert.throws(
      () => parseViewOptions(['--view', '--count', '4']),
      /unknown flag "--count" with --view; usage: npm run bench -- --view \[--rounds N/,
    );
  });
});

describe('the order the kinds run in', () => {
  it('alternates, each round starting with the kind the last one ended with', () => {
    assert.deepEqual(viewRunOrder(3), ['view', 'baked', 'baked', 'view', 'view', 'baked']);
  });

  it('runs each kind once per round, and as often first as second over an even number of rounds', () => {
    for (const rounds of [1, 2, 4, 7]) {
      const order = viewRunOrder(rounds);
      assert.equal(order.filter((kind) => kind === 'view').length, rounds);
      assert.equal(order.filter((kind) => kind === 'baked').length, rounds);
      const viewFirst = order.filter((kind, index) => index % 2 === 0 && kind === 'view').length;
      assert.equal(viewFirst, Math.ceil(rounds / 2));
    }
  });
});
