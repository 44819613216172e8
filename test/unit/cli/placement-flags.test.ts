import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../../src/cli/input-error.ts';
import { parseNodeSelectors, parseTolerations } from '../../../src/cli/placement-flags.ts';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof InputError, String(error));
    return error.message;
  }
  assert.fail('expected an InputError');
}

describe('install placement flags', () => {
  it('reads node selectors as kubectl label does', () => {
    assert.deepEqual(parseNodeSelectors(['sim.flux-framework.org/real=true', 'zone=a']), {
      'sim.flux-framework.org/real': 'true',
      zone: 'a',
    });
    assert.deepEqual(parseNodeSelectors([]), {});
    assert.deepEqual(parseNodeSelectors(['empty=']), { empty: '' });
  });

  it('reads tolerations as kubectl taint writes taints', () => {
    assert.deepEqual(
      parseTolerations(['sim.flux-framework.org/real=true:NoSchedule', 'dedicated:NoExecute']),
      [
        { key: 'sim.flux-framework.org/real', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
        { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' },
      ],
    );
  });

  it('refuses what Kubernetes would, naming the flag and the form it wants', () => {
    assert.match(
      refusal(() => parseNodeSelectors(['zone'])),
      /^--node-selector "zone": expected key=value/,
    );
    assert.match(
      refusal(() => parseNodeSelectors(['bad key=x'])),
      /"bad key" is not a label key/,
    );
    assert.match(
      refusal(() => parseNodeSelectors(['zone=a b'])),
      /"a b" is not a label value/,
    );
    assert.match(
      refusal(() => parseTolerations(['zone=a'])),
      /^--toleration "zone=a": expected key\[=value\]:Effect, Effect one of NoSchedule, PreferNoSchedule, NoExecute/,
    );
    assert.match(
      refusal(() => parseTolerations(['zone=a:Sometimes'])),
      /expected key\[=value\]:Effect/,
    );
    assert.match(
      refusal(() => parseTolerations(['$x=a:NoSchedule'])),
      /"\$x" is not a label key/,
    );
  });
});
