import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CachedMetricsAuthorizer,
  type AccessReviewer,
  type ReviewedUser,
} from '../../../src/observability/metrics-auth.ts';

/** Tokens `reader` (allowed) and `other` (known, not allowed); counts the questions put to it. */
function reviewer(gate?: Promise<void>): AccessReviewer & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async authenticate(token) {
      asked.push(`authenticate ${token}`);
      await gate;
      return token === 'reader' || token === 'other'
        ? { username: `system:serviceaccount:ns:${token}` }
        : undefined;
    },
    async mayGet(user: ReviewedUser, path) {
      asked.push(`mayGet ${user.username} ${path}`);
      return user.username.endsWith(':reader');
    },
  };
}

describe('CachedMetricsAuthorizer', () => {
  it('asks the API server once per token and keeps the decision', async () => {
    const api = reviewer();
    const authorizer = new CachedMetricsAuthorizer(api, { ttlMs: 60_000, maxEntries: 10, maxReviews: 4 });
    assert.equal(await authorizer.decide('Bearer reader'), 'allowed');
    assert.equal(await authorizer.decide('bearer  reader '), 'allowed');
    assert.equal(await authorizer.decide('Bearer other'), 'forbidden');
    assert.equal(await authorizer.decide('Bearer unknown'), 'unauthenticated');
    assert.equal(await authorizer.decide('Bearer unknown'), 'unauthenticated');
    assert.deepEqual(api.asked, [
      'authenticate reader',
      'mayGet system:serviceaccount:ns:reader /metrics',
      'authenticate other',
      'mayGet system:serviceaccount:ns:other /metrics',
      'authenticate unknown',
    ]);
  });

  it('asks nothing of a request without a bearer token', async () => {
    const api = reviewer();
    const authorizer = new CachedMetricsAuthorizer(api);
    for (const header of [undefined, '', 'Basic cmVhZGVyOng=', 'Bearer', 'Bearer a b']) {
      assert.equal(await authorizer.decide(header), 'unauthenticated', String(header));
    }
    assert.deepEqual(api.asked, []);
  });

  it('asks again once a decision is older than its time, and forgets the oldest past its size', async () => {
    const api = reviewer();
    const authorizer = new CachedMetricsAuthorizer(api, { ttlMs: 0, maxEntries: 1, maxReviews: 4 });
    await authorizer.decide('Bearer reader');
    await authorizer.decide('Bearer reader');
    assert.equal(api.asked.filter((question) => question === 'authenticate reader').length, 2);
  });

  it('answers busy past the reviews under way at once, without asking', async () => {
    let open = () => {};
    const api = reviewer(new Promise<void>((resolve) => (open = resolve)));
    const authorizer = new CachedMetricsAuthorizer(api, { ttlMs: 60_000, maxEntries: 10, maxReviews: 2 });
    const first = authorizer.decide('Bearer t1');
    const second = authorizer.decide('Bearer t2');
    assert.equal(await authorizer.decide('Bearer t3'), 'busy');
    open();
    assert.deepEqual(await Promise.all([first, second]), ['unauthenticated', 'unauthenticated']);
    assert.equal(api.asked.includes('authenticate t3'), false);
    assert.equal(await authorizer.decide('Bearer t3'), 'unauthenticated');
  });
});
