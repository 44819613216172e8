import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { operatorImage } from '../../../src/cli/run-command.ts';
import { DEFAULT_OPERATOR_IMAGE } from '../../../src/deploy/index.ts';

describe('operatorImage (what the operator installs on burst targets)', () => {
  it('is the --operator-image flag first, then its own image from the Deployment, then the release', () => {
    const env = { OPERATOR_IMAGE: 'mirror.example.com/flux-operator-ts:0.1.0' };
    assert.equal(operatorImage('example.com/op:dev', env), 'example.com/op:dev');
    assert.equal(operatorImage(undefined, env), 'mirror.example.com/flux-operator-ts:0.1.0');
    assert.equal(operatorImage(undefined, {}), DEFAULT_OPERATOR_IMAGE);
  });

  it('treats an empty flag or variable as unset', () => {
    assert.equal(operatorImage('', { OPERATOR_IMAGE: '' }), DEFAULT_OPERATOR_IMAGE);
  });
});
