import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { operatorImage, readinessChecks } from '../../../src/cli/run-command.ts';
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

describe('readinessChecks', () => {
  const operator = (synced: boolean, webhookReady: boolean) => ({ synced, webhookReady });
  const passing = (checks: Record<string, () => boolean>) =>
    Object.entries(checks)
      .filter(([, check]) => check())
      .map(([name]) => name);

  it('behind a Service: the webhook only, so caches that need conversions never keep the pod from its Service', () => {
    const checks = readinessChecks(operator(false, true), true);
    assert.deepEqual(Object.keys(checks), ['conversion-webhook']);
    assert.deepEqual(passing(checks), ['conversion-webhook']);
    assert.deepEqual(passing(readinessChecks(operator(true, false), true)), []);
  });

  it('out of cluster: the caches and the webhook', () => {
    const checks = readinessChecks(operator(false, true), false);
    assert.deepEqual(Object.keys(checks).sort(), ['conversion-webhook', 'informers-synced']);
    assert.deepEqual(passing(checks), ['conversion-webhook']);
  });
});
