/**
 * Secure metrics (`--metrics-secure`) against the real API server: /metrics over HTTPS answers only a
 * bearer token the API server authenticates (TokenReview) and allows to get /metrics
 * (SubjectAccessReview through the ClusterRole the install makes), as kube-rbac-proxy did for the Go
 * operator. Tokens are ServiceAccount tokens from the TokenRequest API.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { secureMetrics } from '../../src/cli/secure-metrics.ts';
import { FIELD_MANAGER, METRICS_READER_ROLE, metricsReaderClusterRole } from '../../src/deploy/index.ts';
import { apiClients } from '../../src/kube/api-clients.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { loadClusterAccess } from '../../src/kube/cluster-access.ts';
import { startObservabilityServers } from '../../src/observability/health-server.ts';
import { cluster, waitFor, withNamespace } from '../harness/cluster.ts';

/** GET /metrics on loopback; its status and body. */
function get(port: number, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/metrics',
        rejectUnauthorized: false,
        timeout: 10_000,
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('secure metrics (local API server)', () => {
  it('answer a token allowed to get /metrics, 401 without a token the API server knows, 403 without the role', async (t) => {
    const { core, objects, kubeconfig } = await cluster();
    const namespace = await withNamespace(t, 'metrics');
    await serverSideApply(objects, metricsReaderClusterRole() as never, FIELD_MANAGER);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${METRICS_READER_ROLE}-${namespace}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: METRICS_READER_ROLE },
      subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace }],
    };
    await objects.create(binding);
    t.after(() => objects.delete(binding).catch(() => undefined));
    const token = async (name: string) => {
      await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
      const requested = await core.createNamespacedServiceAccountToken({
        name,
        namespace,
        body: { spec: { audiences: [], expirationSeconds: 600 } },
      });
      return requested.status?.token ?? '';
    };
    const [reader, stranger] = [await token('prometheus'), await token('stranger')];

    const clients = apiClients(loadClusterAccess(kubeconfig));
    t.after(() => clients.transport.close());
    const servers = await startObservabilityServers({
      metricsAddr: '127.0.0.1:0',
      healthAddr: '0',
      registry: new Registry(),
      ...(await secureMetrics(clients.transport)),
    });
    t.after(() => servers.close());
    const port = servers.metricsPort ?? 0;

    assert.equal((await get(port)).status, 401);
    assert.equal((await get(port, 'not-a-token')).status, 401);
    assert.equal((await get(port, stranger)).status, 403);
    // RBAC's cache sees the binding a moment after it is made.
    const allowed = await waitFor(async () => ((await get(port, reader)).status === 200 ? true : undefined), {
      what: 'the reader token allowed',
      timeoutMs: 30_000,
    });
    assert.ok(allowed);
    // Plain HTTP is not served there.
    await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`));
  });
});
