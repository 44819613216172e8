import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOutageOptions } from '../../bench/outage-options.ts';

describe('npm run bench -- --outage flags', () => {
  it('defaults to 3 rounds on a cluster named bench-outage', () => {
    assert.deepEqual(parseOutageOptions(['--outage']), { rounds: 3, cluster: 'bench-outage' });
  });

  it('takes --rounds and --cluster, in any order', () => {
    assert.deepEqual(parseOutageOptions(['--cluster', 'mine-2', '--outage', '--rounds', '5']), {
      rounds: 5,
      cluster: 'mine-2',
    });
  });

  it('refuses a round count that is not a whole number of at least 1, naming the flag', () => {
    for (const value of ['0', '-2', '1.5', 'three', '', ' ']) {
      assert.throws(
        () => parseOutageOptions(['--outage', '--rounds', value]),
        new RegExp(`^Error: --rounds takes a whole number of at least 1, not ${JSON.stringify(value)}$`),
      );
    }
    assert.throws(() => parseOutageOptions(['--outage', '--rounds']), /^Error: --rounds takes .*not ""$/);
  });

  it('refuses a cluster name the local cluster would refuse, naming the flag and the rule', () => {
    for (const value of ['Upper', 'ends-', 'kwok', 'a'.repeat(33), '']) {
      assert.throws(
        () => parseOutageOptions(['--outage', '--cluster', value]),
        /^Error: --cluster: invalid cluster name .*1-32 lower-case letters, digits and '-'/,
      );
    }
    assert.throws(
      () => parseOutageOptions(['--outage', '--cluster']),
      /^Error: --cluster: invalid cluster name ""/,
    );
  });

  it('refuses the shared default cluster, whose API server the bench would kill', () => {
    assert.throws(
      () => parseOutageOptions(['--outage', '--cluster', 'default']),
      /--cluster default is the cluster the tests share: the bench kills its API server/,
    );
  });

  it('refuses an unknown flag with the usage', () => {
    assert.throws(
      () => parseOutageOptions(['--outage', '--count', '4']),
      /unknown flag "--count" with --outage; usage: npm run bench -- --outage \[--rounds N \(3\)\]/,
    );
  });
});
