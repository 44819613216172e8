import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  notReadyMessage,
  operatorImage,
  readinessChecks,
  waitUntilReady,
  type ReadinessCheck,
} from '../../../src/cli/run-command.ts';
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
  const operator = (
    synced: boolean,
    webhookReady: boolean,
    apiServerConverts = true,
    conversionProblem: string | undefined = undefined,
  ) => ({ synced, webhookReady, apiServerConverts, conversionProblem });
  const passing = (checks: Record<string, ReadinessCheck>) =>
    Object.entries(checks)
      .filter(([, check]) => check.ready())
      .map(([name]) => name);

  it('behind a Service: the webhook only, so caches that need conversions never keep the pod from its Service', () => {
    const checks = readinessChecks(operator(false, true, false), true);
    assert.deepEqual(Object.keys(checks), ['conversion-webhook']);
    assert.deepEqual(passing(checks), ['conversion-webhook']);
    assert.deepEqual(passing(readinessChecks(operator(true, false), true)), []);
  });

  it('out of cluster: the caches, the webhook, and the API server converting through it', () => {
    const checks = readinessChecks(operator(false, true, false, 'the CRD is not installed'), false);
    assert.deepEqual(Object.keys(checks).sort(), [
      'conversion-webhook',
      'crd-conversion',
      'informers-synced',
    ]);
    assert.deepEqual(passing(checks), ['conversion-webhook']);
    assert.equal(checks['crd-conversion']?.why(), 'the CRD is not installed');
    assert.deepEqual(passing(readinessChecks(operator(true, true, true), false)).length, 3);
  });
});

describe('waitUntilReady', () => {
  const check = (ready: () => boolean, why = 'no reason'): ReadinessCheck => ({ ready, why: () => why });
  const never = new Promise<never>(() => undefined);

  it('resolves with no failing check once every check passes', async () => {
    let calls = 0;
    const failing = await waitUntilReady({ later: check(() => ++calls >= 3) }, 5_000, never);
    assert.deepEqual(failing, []);
    assert.ok(calls >= 3);
  });

  it('names the checks still failing at the deadline, and says why', async () => {
    const checks = {
      ok: check(() => true),
      'crd-conversion': check(() => false, 'the API server answered 500: no webhook'),
    };
    const failing = await waitUntilReady(checks, 120, never);
    assert.deepEqual(failing, ['crd-conversion']);
    assert.equal(
      notReadyMessage(checks, failing ?? [], 60_000),
      'flux-operator is not ready after 60 s: crd-conversion: the API server answered 500: no webhook',
    );
  });

  it('stops waiting when the process is told to stop', async () => {
    const failing = await waitUntilReady({ no: check(() => false) }, 60_000, Promise.resolve());
    assert.equal(failing, undefined);
  });
});
