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
  it('runs every kind each round, rotated by one each round', () => {
    assert.deepEqual(viewRunOrder(3), [
      ...['view', 'memory', 'baked'],
      ...['memory', 'baked', 'view'],
      ...['baked', 'view', 'memory'],
    ]);
  });

  it('runs each kind once per round, and over every three rounds once in each place', () => {
    for (const rounds of [1, 2, 3, 4, 6, 7]) {
      const order = viewRunOrder(rounds);
      assert.equal(order.length, rounds * 3);
      for (let round = 0; round < rounds; round++) {
        assert.deepEqual(order.slice(round * 3, round * 3 + 3).sort(), ['baked', 'memory', 'view']);
      }
      for (const kind of ['view', 'memory', 'baked'] as const) {
        const places = order.flatMap((each, index) => (each === kind ? [index % 3] : []));
        assert.equal(places.length, rounds);
        if (rounds % 3 === 0)
          assert.deepEqual(places.filter((place) => place === 0).length, rounds / 3, kind);
      }
    }
  });
});
