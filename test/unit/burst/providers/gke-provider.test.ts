/**
 * GKE provider against recorded REST expectations. The real `ClusterManagerClient` (HTTP/JSON mode)
 * and the real google-auth-library run; the one seam is the `fetch` handed to the auth client's
 * transporter, which records each request and answers from a table. Nothing reaches a network: the
 * diagnostics-channel watch must stay silent (and is shown to fire on a real loopback request).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parse } from 'yaml';
import { NOT_OWNED, ProviderError } from '../../../../src/burst/providers/cluster-provider.ts';
import { GkeProvider, type GkeClusterSpec } from '../../../../src/burst/providers/gke-provider.ts';
import { OWNER_UID_KEY } from '../../../../src/burst/providers/ownership.ts';
import { closedPort, watchNetwork, type NetworkWatch } from './no-network.ts';
import { fakeGoogle, type GoogleCall, type GoogleReply } from './recorders.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_KEY_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const EMAIL = 'burst@proj-1.iam.gserviceaccount.com';
const SA_JSON = JSON.stringify({
  type: 'service_account',
  project_id: 'proj-1',
  private_key_id: 'key-id-0123456789',
  private_key: PRIVATE_KEY_PEM,
  client_email: EMAIL,
  client_id: '1234567890',
  token_uri: 'https://oauth2.googleapis.com/token',
});

/** The uid of the BurstTarget the cluster is made for, as the API server writes uids. */
const OWNER = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const OTHER_OWNER = '0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d';
const SPEC: GkeClusterSpec = {
  project: 'proj-1',
  location: 'us-central1',
  clusterName: 'burst-a1',
  machineType: 'e2-standard-8',
  nodeCount: 3,
  ownerUid: OWNER,
};
/** The labels a cluster made for SPEC's BurstTarget carries. */
const OWN_LABELS = { 'managed-by': 'flux-operator', [OWNER_UID_KEY]: OWNER };

const API = 'https://container.googleapis.com/v1';
const QUERY = '?$alt=json%3Benum-encoding=int';
const CLUSTER_URL = `${API}/projects/proj-1/locations/us-central1/clusters/burst-a1${QUERY}`;
const CREATE_URL = `${API}/projects/proj-1/locations/us-central1/clusters${QUERY}`;
const TOKEN_URL = 'https://oauth2.googleapis.com/token';
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');
const ACCESS_TOKEN = 'ya29.a0AfB_recorded-token';

function notFound(): GoogleReply {
  return {
    method: 'GET',
    url: CLUSTER_URL,
    status: 404,
    json: {
      error: {
        code: 404,
        message: 'Not found: projects/proj-1/locations/us-central1/clusters/burst-a1.',
        status: 'NOT_FOUND',
      },
    },
  };
}

function cluster(status: string | number, extra: Record<string, unknown> = {}): GoogleReply {
  return {
    method: 'GET',
    url: CLUSTER_URL,
    status: 200,
    // JSON drops what is undefined: `resourceLabels: undefined` is a cluster without labels.
    json: JSON.parse(
      JSON.stringify({
        name: 'burst-a1',
        status,
        endpoint: '34.1.2.3',
        masterAuth: { clusterCaCertificate: CA },
        resourceLabels: OWN_LABELS,
        ...extra,
      }),
    ) as unknown,
  };
}

function tokenReply(): GoogleReply {
  return {
    method: 'POST',
    url: TOKEN_URL,
    status: 200,
    json: { access_token: ACCESS_TOKEN, expires_in: 3599, token_type: 'Bearer' },
  };
}

/** Verifies an RS256 JWT against `key` and returns its claims. */
function verifyJwt(jwt: string, key: KeyObject): Record<string, unknown> {
  const [header, payload, signature] = jwt.split('.');
  assert.ok(header && payload && signature, `not a JWT: ${jwt.slice(0, 20)}`);
  const ok = verify('sha256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'));
  assert.ok(ok, 'JWT signature does not verify with the service account key');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}

function apiCalls(calls: readonly GoogleCall[]): { method: string; url: string; body: unknown }[] {
  return calls.filter((c) => c.url.startsWith(API)).map(({ method, url, body }) => ({ method, url, body }));
}

let watch: NetworkWatch;
const providers: GkeProvider[] = [];

function provider(replies: readonly GoogleReply[], serviceAccountJson: string | undefined = SA_JSON) {
  const google = fakeGoogle(replies);
  const p = new GkeProvider({
    fetch: google.fetch,
    ...(serviceAccountJson === undefined ? {} : { serviceAccountJson }),
  });
  providers.push(p);
  return { p, google };
}

beforeEach(() => {
  watch = watchNetwork();
});

afterEach(async () => {
  watch.stop();
  for (const p of providers.splice(0)) await p.close();
  assert.deepEqual(watch.events, [], 'no socket, http request or fetch may be made');
});

describe('network watch (control)', () => {
  it('sees a real fetch and a real http request to a closed loopback port', async () => {
    const port = await closedPort();
    const control = watchNetwork();
    try {
      await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
      await new Promise<void>((resolve) => {
        http.get(`http://127.0.0.1:${port}/`).on('error', () => resolve());
      });
    } finally {
      control.stop();
    }
    assert.ok(
      control.events.includes('undici:request:create'),
      `fetch not seen: ${control.events.join(',')}`,
    );
    assert.ok(
      control.events.includes('http.client.request.start'),
      `http not seen: ${control.events.join(',')}`,
    );
    assert.ok(control.events.includes('net.client.socket'), `socket not seen: ${control.events.join(',')}`);
    watch.stop();
    watch = watchNetwork(); // the control's own traffic is not a provider's
  });
});

describe('GkeProvider.ensureCluster', () => {
  it('creates an absent cluster with one node pool and workload identity, then reports Provisioning', async () => {
    const { p, google } = provider([
      notFound(),
      {
        method: 'POST',
        url: CREATE_URL,
        status: 200,
        json: { name: 'operation-1700000000000-abc', status: 'RUNNING' },
      },
    ]);
    const state = await p.ensureCluster(SPEC);
    assert.deepEqual(state, {
      phase: 'Provisioning',
      message: 'creating cluster burst-a1 (operation operation-1700000000000-abc)',
    });
    assert.deepEqual(apiCalls(google.calls), [
      { method: 'GET', url: CLUSTER_URL, body: undefined },
      {
        method: 'POST',
        url: CREATE_URL,
        body: {
          cluster: {
            name: 'burst-a1',
            nodePools: [
              {
                name: 'default-pool',
                config: {
                  machineType: 'e2-standard-8',
                  oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
                  metadata: {},
                  labels: {},
                  resourceLabels: {},
                  workloadMetadataConfig: { mode: 2 }, // GKE_METADATA
                },
                initialNodeCount: 3,
              },
            ],
            resourceLabels: { 'managed-by': 'flux-operator', 'flux-operator-burst-target-uid': OWNER },
            workloadIdentityConfig: { workloadPool: 'proj-1.svc.id.goog' },
          },
        },
      },
    ]);
    assert.equal(google.left(), 0);
  });

  it('signs API calls with the service account (self-signed JWT, no token exchange)', async () => {
    const { p, google } = provider([cluster('RUNNING')]);
    await p.ensureCluster(SPEC);
    assert.equal(google.calls.length, 1);
    const auth = google.calls[0]?.authorization ?? '';
    assert.match(auth, /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = verifyJwt(auth.slice('Bearer '.length), publicKey);
    assert.equal(claims.iss, EMAIL);
    assert.equal(claims.sub, EMAIL);
  });

  it('only reports an existing cluster (idempotent)', async () => {
    const { p, google } = provider([cluster('RUNNING')]);
    const state = await p.ensureCluster(SPEC);
    assert.deepEqual(state, {
      phase: 'Ready',
      endpoint: 'https://34.1.2.3',
      caData: CA,
      message: 'cluster RUNNING',
    });
    assert.deepEqual(
      google.calls.map((c) => c.method),
      ['GET'],
    );
  });

  it('reports the cluster when a concurrent create won (409 ALREADY_EXISTS)', async () => {
    const { p, google } = provider([
      notFound(),
      {
        method: 'POST',
        url: CREATE_URL,
        status: 409,
        json: { error: { code: 409, message: 'Already exists', status: 'ALREADY_EXISTS' } },
      },
      cluster('PROVISIONING', { endpoint: '', masterAuth: {} }),
    ]);
    assert.deepEqual(await p.ensureCluster(SPEC), { phase: 'Provisioning', message: 'cluster PROVISIONING' });
    assert.equal(google.left(), 0);
  });

  it('rejects an invalid spec before any call', async () => {
    const { p, google } = provider([]);
    await assert.rejects(p.ensureCluster({ ...SPEC, clusterName: 'Bad_Name' }), ProviderError);
    await assert.rejects(p.ensureCluster({ ...SPEC, nodeCount: 0 }), /nodeCount/);
    await assert.rejects(p.ensureCluster({ ...SPEC, ownerUid: '' }), /spec\.ownerUid/);
    assert.equal(google.calls.length, 0);
  });
});

describe('GkeProvider.describe', () => {
  const cases: [string | number, string][] = [
    ['PROVISIONING', 'Provisioning'],
    ['RUNNING', 'Ready'],
    ['RECONCILING', 'Ready'],
    ['STOPPING', 'Deleting'],
    ['ERROR', 'Error'],
    ['DEGRADED', 'Error'],
    [1, 'Provisioning'],
    [2, 'Ready'],
    [4, 'Deleting'],
    [5, 'Error'],
  ];
  for (const [status, phase] of cases) {
    it(`maps status ${JSON.stringify(status)} to ${phase}`, async () => {
      const { p } = provider([
        cluster(status, { statusMessage: status === 'ERROR' ? 'quota exceeded' : '' }),
      ]);
      const state = await p.describe(SPEC);
      assert.equal(state.phase, phase);
      if (status === 'ERROR') assert.equal(state.message, 'cluster ERROR: quota exceeded');
    });
  }

  it('is Absent when the API answers 404', async () => {
    const { p } = provider([notFound()]);
    assert.deepEqual(await p.describe(SPEC), { phase: 'Absent', message: 'cluster burst-a1 does not exist' });
  });

  it('is not Ready while RUNNING without an endpoint', async () => {
    const { p } = provider([cluster('RUNNING', { endpoint: '' })]);
    assert.equal((await p.describe(SPEC)).phase, 'Provisioning');
  });
});

describe('GkeProvider.deleteCluster', () => {
  it('deletes an existing cluster', async () => {
    const { p, google } = provider([
      cluster('RUNNING'),
      {
        method: 'DELETE',
        url: CLUSTER_URL,
        status: 200,
        json: { name: 'operation-del', operationType: 'DELETE_CLUSTER' },
      },
    ]);
    await p.deleteCluster(SPEC);
    assert.deepEqual(apiCalls(google.calls), [
      { method: 'GET', url: CLUSTER_URL, body: undefined },
      { method: 'DELETE', url: CLUSTER_URL, body: undefined },
    ]);
  });

  it('does nothing for an absent or already stopping cluster', async () => {
    const absent = provider([notFound()]);
    await absent.p.deleteCluster(SPEC);
    const stopping = provider([cluster('STOPPING')]);
    await stopping.p.deleteCluster(SPEC);
    assert.deepEqual(
      [...absent.google.calls, ...stopping.google.calls].map((c) => c.method),
      ['GET', 'GET'],
    );
  });
});

describe('GkeProvider.kubeconfig', () => {
  it('gives endpoint, CA and an OAuth access token of the service account', async () => {
    const { p, google } = provider([cluster('RUNNING'), tokenReply()]);
    const doc = parse(await p.kubeconfig(SPEC)) as Record<string, unknown>;
    const name = 'gke_proj-1_us-central1_burst-a1';
    assert.deepEqual(doc, {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster: { server: 'https://34.1.2.3', 'certificate-authority-data': CA } }],
      users: [{ name, user: { token: ACCESS_TOKEN } }],
      contexts: [{ name, context: { cluster: name, user: name } }],
      'current-context': name,
    });
    const exchange = google.calls[1];
    assert.equal(exchange?.method, 'POST');
    assert.equal(exchange.url, TOKEN_URL);
    const form = exchange.body as Record<string, string>;
    assert.equal(form.grant_type, 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    const claims = verifyJwt(form.assertion ?? '', publicKey);
    assert.equal(claims.iss, EMAIL);
    assert.equal(claims.aud, TOKEN_URL);
    assert.equal(claims.scope, 'https://www.googleapis.com/auth/cloud-platform');
  });

  it('refuses a cluster that is not Ready', async () => {
    const { p, google } = provider([cluster('PROVISIONING')]);
    await assert.rejects(p.kubeconfig(SPEC), /not ready \(Provisioning\)/);
    assert.equal(google.calls.length, 1);
  });

  it('uses Application Default Credentials when no key is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gke-adc-'));
    const saved = process.env.GOOGLE_APPLICATION_CREDENTIALS;
    try {
      writeFileSync(join(dir, 'key.json'), SA_JSON);
      process.env.GOOGLE_APPLICATION_CREDENTIALS = join(dir, 'key.json');
      const { p, google } = provider([cluster('RUNNING'), tokenReply()], undefined);
      assert.match(await p.kubeconfig(SPEC), /token: ya29\.a0AfB_recorded-token/);
      assert.deepEqual(
        google.calls.map((c) => `${c.method} ${c.url}`),
        [`GET ${CLUSTER_URL}`, `POST ${TOKEN_URL}`],
      );
    } finally {
      if (saved === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
      else process.env.GOOGLE_APPLICATION_CREDENTIALS = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('GkeProvider credentials never leak', () => {
  it('scrubs key material and tokens echoed in an API error, and keeps no cause', async () => {
    const echoed = `denied for key ${PRIVATE_KEY_PEM} token ${ACCESS_TOKEN} id key-id-0123456789`;
    const { p } = provider([
      {
        method: 'GET',
        url: CLUSTER_URL,
        status: 403,
        json: { error: { code: 403, message: echoed, status: 'PERMISSION_DENIED' } },
      },
    ]);
    const err = await p.describe(SPEC).then(
      () => assert.fail('describe should have failed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ProviderError);
    assert.equal(err.code, 'PERMISSION_DENIED');
    assert.equal(err.cause, undefined);
    const everything = `${err.message}\n${err.stack ?? ''}\n${JSON.stringify(err)}`;
    assert.match(err.message, /^gke: get cluster burst-a1: .*denied for key \[REDACTED\]/);
    assert.ok(!everything.includes('PRIVATE KEY'), 'private key leaked');
    assert.ok(!everything.includes(PRIVATE_KEY_PEM.split('\n')[1] ?? 'x'), 'private key body leaked');
    assert.ok(!everything.includes(ACCESS_TOKEN), 'access token leaked');
    assert.ok(!everything.includes('key-id-0123456789'), 'key id leaked');
  });

  it('does not quote an invalid key JSON in its error', () => {
    const secretish = '{"private_key": "-----BEGIN PRIVATE KEY-----abc", oops';
    assert.throws(
      () => new GkeProvider({ serviceAccountJson: secretish }),
      (e: unknown) => e instanceof ProviderError && e.message === 'gke: serviceAccountJson is not valid JSON',
    );
  });

  it('puts no credential in any returned state', async () => {
    const { p } = provider([cluster('ERROR', { statusMessage: `bad key ${PRIVATE_KEY_PEM}` })]);
    const state = await p.describe(SPEC);
    assert.equal(state.phase, 'Error');
    assert.ok(!JSON.stringify(state).includes('PRIVATE KEY'));
    assert.equal(state.message, 'cluster ERROR: bad key [REDACTED]');
  });
});

describe('GkeProvider never acts on a cluster that is not its BurstTarget', () => {
  /** Clusters of SPEC's name that are not SPEC's BurstTarget's, by what their labels say. */
  const foreign: [string, Record<string, string> | undefined, RegExp][] = [
    [
      'no labels at all',
      undefined,
      /has no label flux-operator-burst-target-uid, so this operator did not make it/,
    ],
    ['labels of its own', { team: 'prod' }, /has no label flux-operator-burst-target-uid/],
    [
      "another BurstTarget's uid",
      { 'managed-by': 'flux-operator', [OWNER_UID_KEY]: OTHER_OWNER },
      new RegExp(
        `made for another BurstTarget \\(its label ${OWNER_UID_KEY} is ${OTHER_OWNER}, this BurstTarget's uid is ${OWNER}\\)`,
      ),
    ],
    [
      'managed-by without a uid',
      { 'managed-by': 'flux-operator' },
      new RegExp(`but no ${OWNER_UID_KEY}.*add the label ${OWNER_UID_KEY}=${OWNER}`),
    ],
  ];
  for (const [what, labels, why] of foreign) {
    it(`reports a cluster with ${what} as NotOwned, without its endpoint, and creates nothing`, async () => {
      const { p, google } = provider([cluster('RUNNING', { resourceLabels: labels })]);
      const state = await p.ensureCluster(SPEC);
      assert.equal(state.phase, 'NotOwned');
      assert.match(state.message, /^cluster burst-a1 exists, but /);
      assert.match(state.message, why);
      assert.equal(state.endpoint, undefined);
      assert.equal(state.caData, undefined);
      assert.deepEqual(
        google.calls.map((c) => `${c.method} ${c.url}`),
        [`GET ${CLUSTER_URL}`],
      );
    });
  }

  it('refuses to delete it (ProviderError NotOwned) without sending a DELETE', async () => {
    const { p, google } = provider([cluster('RUNNING', { resourceLabels: { team: 'prod' } })]);
    const err = await p.deleteCluster(SPEC).then(
      () => assert.fail('deleteCluster should have refused'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ProviderError);
    assert.equal(err.code, NOT_OWNED);
    assert.match(err.message, /^gke: refusing to delete cluster burst-a1: it has no label/);
    assert.deepEqual(
      google.calls.map((c) => c.method),
      ['GET'],
    );
  });

  it('hands out no kubeconfig (no token is even requested)', async () => {
    const { p, google } = provider([cluster('RUNNING', { resourceLabels: undefined })]);
    await assert.rejects(p.kubeconfig(SPEC), /not ready \(NotOwned\)/);
    assert.deepEqual(
      google.calls.map((c) => `${c.method} ${c.url}`),
      [`GET ${CLUSTER_URL}`],
    );
  });

  it('reports NotOwned when a concurrent create of someone else won (409 ALREADY_EXISTS)', async () => {
    const { p } = provider([
      notFound(),
      {
        method: 'POST',
        url: CREATE_URL,
        status: 409,
        json: { error: { code: 409, message: 'Already exists', status: 'ALREADY_EXISTS' } },
      },
      cluster('PROVISIONING', { resourceLabels: { [OWNER_UID_KEY]: OTHER_OWNER } }),
    ]);
    assert.equal((await p.ensureCluster(SPEC)).phase, 'NotOwned');
  });

  it('deletes a cluster of its own in any state but never one of another uid in the same state', async () => {
    const own = provider([
      cluster('ERROR'),
      { method: 'DELETE', url: CLUSTER_URL, status: 200, json: { name: 'operation-del' } },
    ]);
    await own.p.deleteCluster(SPEC);
    const theirs = provider([cluster('ERROR', { resourceLabels: { [OWNER_UID_KEY]: OTHER_OWNER } })]);
    await assert.rejects(theirs.p.deleteCluster(SPEC), /made for another BurstTarget/);
    assert.deepEqual(
      [own.google.calls, theirs.google.calls].map((calls) => calls.map((c) => c.method)),
      [['GET', 'DELETE'], ['GET']],
    );
  });
});
