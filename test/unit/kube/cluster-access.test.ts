import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  accessFromKubeconfig,
  accessInCluster,
  loadClusterAccess,
} from '../../../src/kube/cluster-access.ts';

function folder(): string {
  return mkdtempSync(path.join(tmpdir(), 'cluster-access-'));
}

function kubeconfig(
  dir: string,
  user: Record<string, unknown>,
  cluster: Record<string, unknown> = {},
): string {
  const file = path.join(dir, 'config');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'ctx',
      contexts: [
        { name: 'other', context: { cluster: 'c2', user: 'u2' } },
        { name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'team' } },
      ],
      clusters: [
        { name: 'c2', cluster: { server: 'https://wrong:1' } },
        { name: 'c', cluster: { server: 'https://api.example:6443/', ...cluster } },
      ],
      users: [
        { name: 'u2', user: { token: 'wrong' } },
        { name: 'u', user },
      ],
    }),
  );
  return file;
}

describe('loading cluster access', () => {
  it('reads the current context: server, inline CA and client certificate, namespace', async () => {
    const dir = folder();
    const file = kubeconfig(
      dir,
      {
        'client-certificate-data': Buffer.from('CERT').toString('base64'),
        'client-key-data': Buffer.from('KEY').toString('base64'),
      },
      { 'certificate-authority-data': Buffer.from('CA').toString('base64'), 'tls-server-name': 'kubernetes' },
    );
    const access = accessFromKubeconfig(file);
    assert.equal(access.server, 'https://api.example:6443');
    assert.equal(access.namespace, 'team');
    assert.equal(access.tls.ca?.toString(), 'CA');
    assert.equal(access.tls.cert?.toString(), 'CERT');
    assert.equal(access.tls.key?.toString(), 'KEY');
    assert.equal(access.tls.rejectUnauthorized, true);
    assert.equal(access.tls.servername, 'kubernetes');
    assert.equal(await access.authorization(), undefined);
  });

  it('reads files relative to the kubeconfig, a token, a token file, basic auth, insecure-skip-tls-verify', async () => {
    const dir = folder();
    mkdirSync(path.join(dir, 'pki'));
    writeFileSync(path.join(dir, 'pki', 'ca.crt'), 'CA FILE');
    writeFileSync(path.join(dir, 'pki', 'admin.crt'), 'CERT FILE');
    writeFileSync(path.join(dir, 'pki', 'admin.key'), 'KEY FILE');
    const files = accessFromKubeconfig(
      kubeconfig(
        dir,
        { 'client-certificate': 'pki/admin.crt', 'client-key': 'pki/admin.key' },
        { 'certificate-authority': 'pki/ca.crt' },
      ),
    );
    assert.equal(files.tls.ca?.toString(), 'CA FILE');
    assert.equal(files.tls.cert?.toString(), 'CERT FILE');
    assert.equal(files.tls.key?.toString(), 'KEY FILE');

    assert.equal(await accessFromKubeconfig(kubeconfig(dir, { token: 'abc' })).authorization(), 'Bearer abc');
    writeFileSync(path.join(dir, 'token'), 'from-file\n');
    assert.equal(
      await accessFromKubeconfig(kubeconfig(dir, { tokenFile: 'token' })).authorization(),
      'Bearer from-file',
    );
    assert.equal(
      await accessFromKubeconfig(kubeconfig(dir, { username: 'me', password: 'pw' })).authorization(),
      `Basic ${Buffer.from('me:pw').toString('base64')}`,
    );
    const insecure = accessFromKubeconfig(kubeconfig(dir, {}, { 'insecure-skip-tls-verify': true }));
    assert.equal(insecure.tls.rejectUnauthorized, false);
  });

  it('names the file and what is missing', () => {
    const dir = folder();
    const file = path.join(dir, 'empty');
    writeFileSync(file, 'apiVersion: v1\nkind: Config\n');
    assert.throws(() => accessFromKubeconfig(file), { message: `kubeconfig ${file} has no current cluster` });
    writeFileSync(file, 'current-context: gone\ncontexts: []\n');
    assert.throws(() => accessFromKubeconfig(file), /current-context gone is not in contexts/);
  });

  it('in a pod: the service account token and CA, the service host and port', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'token'), 'sa-token');
    writeFileSync(path.join(dir, 'ca.crt'), 'SA CA');
    writeFileSync(path.join(dir, 'namespace'), 'flux-operator-system');
    const access = accessInCluster(
      { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      dir,
    );
    assert.equal(access.server, 'https://10.0.0.1:443');
    assert.equal(access.tls.ca?.toString(), 'SA CA');
    assert.equal(access.namespace, 'flux-operator-system');
    assert.equal(await access.authorization(), 'Bearer sa-token');
    const v6 = accessInCluster({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir);
    assert.equal(v6.server, 'https://[fd00::1]:443');
  });

  it('looks in $KUBECONFIG, then ~/.kube/config, and says where it looked', () => {
    const dir = folder();
    const file = kubeconfig(dir, { token: 't' });
    assert.equal(
      loadClusterAccess(undefined, { KUBECONFIG: file, HOME: dir }).server,
      'https://api.example:6443',
    );
    mkdirSync(path.join(dir, '.kube'));
    writeFileSync(path.join(dir, '.kube', 'config'), JSON.stringify({ 'current-context': 'x' }));
    assert.throws(() => loadClusterAccess(undefined, { HOME: dir }), /current-context x is not in contexts/);
    assert.throws(
      () => loadClusterAccess(undefined, { HOME: path.join(dir, 'nowhere') }),
      /no cluster configured: set --kubeconfig, \$KUBECONFIG or ~\/.kube\/config/,
    );
  });
});
