import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiException } from '@kubernetes/client-node';
import { classifyProbeError, networkCode } from '../../../src/burst/target-errors.ts';

const context = {
  server: 'https://remote.example.com:6443',
  source: 'Secret team-a/remote key kubeconfig',
  user: 'burst',
  timeoutMs: 10_000,
};

function apiError(code: number, message: string): ApiException<string> {
  return new ApiException(code, message, JSON.stringify({ kind: 'Status', message, code }), {});
}

function fetchFailed(code: string, message = code): TypeError {
  const cause = Object.assign(new Error(message), { code });
  return new TypeError('fetch failed', { cause });
}

describe('classifyProbeError', () => {
  it('401: Unauthorized, naming the server, the user and the Secret, and the fix', () => {
    const result = classifyProbeError(apiError(401, 'Unauthorized'), context);
    assert.equal(result.reason, 'Unauthorized');
    assert.match(
      result.message,
      /^the API server https:\/\/remote\.example\.com:6443 rejected the credentials of user "burst" in Secret team-a\/remote key kubeconfig \(HTTP 401 Unauthorized\)/,
    );
    assert.match(result.message, /put valid credentials in the kubeconfig and update the Secret$/);
  });

  it('403: Forbidden, with the server’s own message', () => {
    const result = classifyProbeError(
      apiError(403, 'forbidden: User "system:anonymous" cannot get path "/version"'),
      context,
    );
    assert.equal(result.reason, 'Forbidden');
    assert.match(result.message, /cannot get path "\/version" \(HTTP 403\)/);
  });

  it('other HTTP errors: Unreachable with the status', () => {
    const result = classifyProbeError(apiError(503, 'service unavailable'), context);
    assert.equal(result.reason, 'Unreachable');
    assert.match(result.message, /answered with an error: service unavailable \(HTTP 503\)/);
  });

  it('network errors: Unreachable, saying what happened in words', () => {
    assert.match(
      classifyProbeError(fetchFailed('ECONNREFUSED'), context).message,
      /^cannot reach https:\/\/remote\.example\.com:6443: connection refused/,
    );
    assert.match(
      classifyProbeError(fetchFailed('ENOTFOUND'), context).message,
      /host name not found \(DNS\)/,
    );
    const unknown = classifyProbeError(fetchFailed('EWEIRD', 'something odd'), context);
    assert.equal(unknown.reason, 'Unreachable');
    assert.match(
      unknown.message,
      /: something odd; check the server URL in Secret team-a\/remote key kubeconfig/,
    );
  });

  it('TLS errors: point at certificate-authority-data', () => {
    const result = classifyProbeError(fetchFailed('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), context);
    assert.equal(result.reason, 'Unreachable');
    assert.match(
      result.message,
      /TLS certificate of https:\/\/remote\.example\.com:6443 is not trusted .*certificate-authority-data/,
    );
  });

  it('timeouts: say how long it waited', () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    const result = classifyProbeError(timeout, { ...context, timeoutMs: 2_500 });
    assert.equal(result.reason, 'Unreachable');
    assert.match(result.message, /^no answer from https:\/\/remote\.example\.com:6443 within 2\.5 s/);
  });

  it('networkCode finds the innermost code', () => {
    assert.equal(networkCode(fetchFailed('ECONNRESET')), 'ECONNRESET');
    assert.equal(networkCode(new Error('plain')), undefined);
  });
});
