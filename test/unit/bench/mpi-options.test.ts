import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMpiOptions } from '../../bench/mpi-options.ts';

describe('npm run bench -- --mpi flags', () => {
  it('defaults to MiniClusters of 2 pods, 3 rounds and a 300 s wait', () => {
    assert.deepEqual(parseMpiOptions(['--mpi']), { size: 2, rounds: 3, timeoutSeconds: 300 });
  });

  it('takes --size, --rounds and --timeout-seconds, in any order', () => {
    assert.deepEqual(parseMpiOptions(['--rounds', '1', '--mpi', '--timeout-seconds', '90', '--size', '4']), {
      size: 4,
      rounds: 1,
      timeoutSeconds: 90,
    });
  });

  it('refuses a size under 2: MPI across pods needs two of them', () => {
    for (const value of ['1', '0', '-2']) {
      assert.throws(
        () => parseMpiOptions(['--mpi', '--size', value]),
        new RegExp(`^Error: --size takes a whole number of at least 2, not "${value}"$`),
      );
    }
  });

  it('refuses a value that is not a whole number of at least 1, naming the flag', () => {
    for (const value of ['0', '1.5', 'three', '', ' ']) {
      assert.throws(
        () => parseMpiOptions(['--mpi', '--rounds', value]),
        new RegExp(`^Error: --rounds takes a whole number of at least 1, not ${JSON.stringify(value)}$`),
      );
    }
    assert.throws(
      () => parseMpiOptions(['--mpi', '--timeout-seconds']),
      /^Error: --timeout-seconds takes a whole number of at least 1, not ""$/,
    );
  });

  it('refuses an unknown flag with the usage', () => {
    assert.throws(
      () => parseMpiOptions(['--mpi', '--count', '4']),
      /^Error: unknown flag "--count" with --mpi; usage: npm run bench -- --mpi \[--size N \(2\)\] \[--rounds N \(3\)\] \[--timeout-seconds N \(300\)\]$/,
    );
  });
});
