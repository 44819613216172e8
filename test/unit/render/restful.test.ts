import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { restfulServerFiles } from '../../../src/restful/server-files.ts';
import { renderMiniCluster, restfulCredentials } from '../../../src/render/index.ts';
import type { KubeObject } from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted, find, present } from './fixtures.ts';

/** A RESTful MiniCluster: no command, not interactive. */
const persistent = (spec: Record<string, unknown> = {}) =>
  defaulted({ size: 2, containers: [{ image: IMAGE }], ...spec });

// HMAC-SHA256 of the purpose under KEYS.restfulSeed (bytes 0..31), base64url.
const SEED_TOKEN = 'eZ7zWs8h2mEJlTchusjmP87xRc99l5FazydzSccoKpw';
const SEED_SECRET_KEY = 'PoZCMbiiaIGIroo9FG-nqEHZuBdy0jCMHOTy-pKkKaE';
const SEED_PEENUT = 'sJt8X0kT6KqYygivt1AFFLaE_WxgSwfgOoIXbIpXSx4';
/** Tokens and keys a user gives: at least 32 characters. */
const GIVEN_PASSWORD = 'the-password-of-squidward-0123456';
const GIVEN_TOKEN = 'the-token-of-me-0123456789abcdefgh';
const GIVEN_KEY = 'the-signing-key-0123456789abcdefgh';

function secretText(objects: KubeObject[], key: string): string {
  const data = find.secret(objects, 'flux-sample-restful').data ?? {};
  return Buffer.from(present(data[key]), 'base64').toString('utf8');
}

function restfulService(objects: KubeObject[]) {
  return present(
    objects.find((object) => object.kind === 'Service' && object.metadata.name === 'flux-sample-restful'),
  );
}

describe('RESTful mode', () => {
  it('renders the Secret and the Service of the API beside the usual objects', () => {
    const objects = renderMiniCluster(persistent(), KEYS);
    assert.deepEqual(
      objects.map((object) => `${object.kind}/${object.metadata.name}`),
      [
        'ConfigMap/flux-sample-flux-config',
        'Secret/flux-sample-curve-cert',
        'Secret/flux-sample-munge-key',
        'Secret/flux-sample-restful',
        'Service/flux-sample',
        'Service/flux-sample-restful',
        'Job/flux-sample',
      ],
    );
  });

  it('keeps generated credentials, derived from the seed, in the Secret only', () => {
    const objects = renderMiniCluster(
      persistent({
        users: [{ name: 'peenut' }, { name: 'squidward', password: GIVEN_PASSWORD, administrator: true }],
      }),
      KEYS,
    );
    const secret = find.secret(objects, 'flux-sample-restful');
    assert.equal(secret.immutable, undefined);
    // The data keys spelled out on purpose: they are the Secret's wire format, which users' scripts
    // and `flux-operator jobs` of other versions read.
    assert.deepEqual(Object.keys(secret.data ?? {}), [
      'credentials.json',
      'secretKey',
      'seed',
      'token',
      'username',
    ]);
    assert.equal(secretText(objects, 'username'), 'flux');
    assert.equal(secretText(objects, 'token'), SEED_TOKEN);
    assert.equal(secretText(objects, 'secretKey'), SEED_SECRET_KEY);
    assert.deepEqual(
      [...Buffer.from(present(secret.data?.seed), 'base64')],
      Array.from({ length: 32 }, (_, index) => index),
    );
    assert.equal(
      secretText(objects, 'credentials.json'),
      `${JSON.stringify({
        secretKey: SEED_SECRET_KEY,
        users: { flux: SEED_TOKEN, peenut: SEED_PEENUT, squidward: GIVEN_PASSWORD },
        // The main user always; those of spec.users made so.
        administrators: ['flux', 'squidward'],
      })}\n`,
    );
    const configMap = JSON.stringify(find.configMap(objects));
    for (const secretValue of [SEED_TOKEN, SEED_SECRET_KEY, SEED_PEENUT]) {
      assert.ok(!configMap.includes(secretValue), 'no credential in the ConfigMap');
    }
  });

  it("takes the spec's credentials, and a user added later keeps the same derived token", () => {
    const given = persistent({
      fluxRestful: { username: 'me', token: GIVEN_TOKEN, secretKey: GIVEN_KEY, port: 8080 },
    });
    assert.deepEqual(restfulCredentials(given, present(KEYS.restfulSeed)), {
      username: 'me',
      token: GIVEN_TOKEN,
      secretKey: GIVEN_KEY,
      users: { me: GIVEN_TOKEN },
      administrators: ['me'],
    });
    const later = persistent({ users: [{ name: 'other' }, { name: 'peenut' }] });
    assert.equal(restfulCredentials(later, present(KEYS.restfulSeed)).users.peenut, SEED_PEENUT);
  });

  it('exposes the port on the lead pod only, through a Service named <name>-restful', () => {
    const objects = renderMiniCluster(persistent({ fluxRestful: { port: 8080 } }), KEYS);
    assert.deepEqual(restfulService(objects), {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'flux-sample-restful',
        namespace: 'default',
        labels: {
          'app.kubernetes.io/name': 'flux-minicluster',
          'app.kubernetes.io/instance': 'flux-sample',
          'app.kubernetes.io/managed-by': 'flux-operator',
          'app.kubernetes.io/component': 'restful',
          'flux-framework.org/minicluster': 'flux-sample',
        },
      },
      spec: {
        selector: {
          'app.kubernetes.io/name': 'flux-minicluster',
          'flux-framework.org/minicluster': 'flux-sample',
          'batch.kubernetes.io/job-completion-index': '0',
        },
        ports: [{ name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' }],
      },
    });
  });

  it('mounts the credentials and the server in the Flux container, and names the port', () => {
    const objects = renderMiniCluster(persistent(), KEYS);
    const pod = present(find.job(objects).spec?.template.spec);
    assert.deepEqual(
      pod.volumes?.find((volume) => volume.name === 'flux-operator-restful'),
      {
        name: 'flux-operator-restful',
        secret: {
          secretName: 'flux-sample-restful',
          items: [{ key: 'credentials.json', path: 'credentials.json' }], // the Secret's wire format
          defaultMode: 0o400,
        },
      },
    );
    assert.deepEqual(pod.volumes?.find((volume) => volume.name === 'flux-operator-files')?.configMap?.items, [
      { key: 'entrypoint.sh', path: 'entrypoint.sh', mode: 0o555 },
      { key: 'forget-certificate.sh', path: 'rc1.d/forget-certificate.sh', mode: 0o555 },
      // Read by flux modprobe, never run: not executable.
      { key: 'one-step-cleanup.py', path: 'modprobe/rc1.d/one-step-cleanup.py', mode: 0o444 },
      { key: 'restful-server.py', path: 'restful-server.py', mode: 0o444 },
      // The modules the server imports, beside it under their module names.
      { key: 'restful_auth.py', path: 'restful_auth.py', mode: 0o444 },
      { key: 'restful_http.py', path: 'restful_http.py', mode: 0o444 },
      // The web pages, with their script and style sheet.
      { key: 'restful_pages.py', path: 'restful_pages.py', mode: 0o444 },
      { key: 'restful_pages.js', path: 'restful_pages.js', mode: 0o444 },
      { key: 'restful_pages.css', path: 'restful_pages.css', mode: 0o444 },
    ]);
    const container = present(pod.containers[0]);
    assert.deepEqual(container.ports, [
      { name: 'flux-broker', containerPort: 8050, protocol: 'TCP' },
      { name: 'http', containerPort: 5000, protocol: 'TCP' },
    ]);
    assert.deepEqual(container.volumeMounts?.slice(-2), [
      { name: 'flux-operator-restful', mountPath: '/etc/flux-operator/restful', readOnly: true },
      { name: 'flux-operator-shm', mountPath: '/dev/shm' },
    ]);
    const server = readFileSync(new URL('../../../src/restful/restful_server.py', import.meta.url), 'utf8');
    assert.equal(find.configMap(objects).data?.['restful-server.py'], server);
    for (const [file, text] of Object.entries(restfulServerFiles())) {
      assert.equal(find.configMap(objects).data?.[file], text, file);
    }
  });

  it('generates tokens and keys of 256 bits', () => {
    const credentials = restfulCredentials(
      persistent({ users: [{ name: 'peenut' }] }),
      present(KEYS.restfulSeed),
    );
    for (const value of [credentials.token, credentials.secretKey, credentials.users.peenut]) {
      // base64url without padding: 43 characters hold 258 bits, of which the 256 of an HMAC-SHA256.
      assert.match(present(value), /^[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(present(value), 'base64url').length, 32);
    }
  });

  it('has the lead copy the credentials and run the server with flux python as its program', () => {
    const script = present(find.configMap(renderMiniCluster(persistent(), KEYS)).data?.['entrypoint.sh']);
    assert.match(script, /^restful_credentials_source=\/etc\/flux-operator\/restful\/credentials\.json$/m);
    assert.match(script, /^restful_credentials=\/mnt\/flux\/restful\/credentials\.json$/m);
    assert.match(script, /^restful_port=5000$/m);
    // The brokers' rc1 runs the ConfigMap's rc1.d/forget-certificate.sh (FLUX_RC_EXTRA).
    assert.match(script, /^rc_extra_dir=\/flux_operator$/m);
    assert.match(
      script,
      /^program_args=\(flux python \/flux_operator\/restful-server\.py \/mnt\/flux\/restful\/credentials\.json 5000\)$/m,
    );
    assert.doesNotMatch(script, /^restful_ignored_branch=/m);
    const withBranch = find.configMap(
      renderMiniCluster(persistent({ fluxRestful: { branch: 'main' } }), KEYS),
    );
    assert.match(present(withBranch.data?.['entrypoint.sh']), /^restful_ignored_branch=main$/m);
  });

  it('renders none of it for a MiniCluster with a command, or interactive without fluxRestful', () => {
    for (const miniCluster of [defaulted({ size: 2 }), persistent({ interactive: true })]) {
      const objects = renderMiniCluster(miniCluster, KEYS);
      assert.ok(!objects.some((object) => object.metadata.name === 'flux-sample-restful'));
      assert.equal(find.configMap(objects).data?.['restful-server.py'], undefined);
    }
  });

  it('refuses to render without a seed for the credentials', () => {
    assert.throws(
      () =>
        renderMiniCluster(persistent(), { curveCertificate: KEYS.curveCertificate, mungeKey: KEYS.mungeKey }),
      /serves the RESTful API but its keys have no restfulSeed/,
    );
  });
});
