import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAgainstGoOptions } from '../../bench/against-go-options.ts';

describe('npm run bench -- --against-go flags', () => {
  it('defaults to 50 x 8, ours first, 30 s steady, on the cluster named bench, torn down after', () => {
    assert.deepEqual(parseAgainstGoOptions(['--against-go']), {
      count: 50,
      size: 8,
      steadySeconds: 30,
      order: ['ours', 'go'],
      goAffinity: false,
      cluster: 'bench',
      keepCluster: false,
    });
  });

  it('takes every flag', () => {
    assert.deepEqual(
      parseAgainstGoOptions([
        '--against-go',
        '--count',
        '10',
        '--size',
        '4',
        '--steady-seconds',
        '0',
        '--go-first',
        '--go-affinity',
        '--cluster',
        'bench-2',
        '--keep-cluster',
      ]),
      {
        count: 10,
        size: 4,
        steadySeconds: 0,
        order: ['go', 'ours'],
        goAffinity: true,
        cluster: 'bench-2',
        keepCluster: true,
      },
    );
  });

  it('names the flag and what it takes when a value is bad or missing', () => {
    assert.throws(
      () => parseAgainstGoOptions(['--against-go', '--count', '0']),
      /^Error: --count takes a whole number of at least 1, not "0"$/,
    );
    assert.throws(
      () => parseAgainstGoOptions(['--size', '2.5']),
      /^Error: --size takes a whole number of at least 1, not "2\.5"$/,
    );
    assert.throws(
      () => parseAgainstGoOptions(['--steady-seconds']),
      /^Error: --steady-seconds takes a whole number of at least 0, not ""$/,
    );
    assert.throws(
      () => parseAgainstGoOptions(['--count', '--go-first']),
      /^Error: --count takes a whole number/,
    );
    assert.throws(() => parseAgainstGoOptions(['--cluster']), /^Error: --cluster takes a cluster name$/);
    assert.throws(() => parseAgainstGoOptions(['--cluster', 'Bench']), /invalid cluster name "Bench"/);
  });

  it('refuses the shared default cluster and unknown flags', () => {
    assert.throws(
      () => parseAgainstGoOptions(['--cluster', 'default']),
      /^Error: --cluster default is the shared cluster other work runs on; name a cluster of its own$/,
    );
    assert.throws(
      () => parseAgainstGoOptions(['--against-go', '--scale']),
      /^Error: unknown flag "--scale" with --against-go; usage: npm run bench -- --against-go \[--count N \(50\)\]/,
    );
  });
});
