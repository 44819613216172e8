// The operator's own transport (src/kube/transport.ts, api-clients.ts, list-watch.ts) against the
// local control plane's real API server: requests, apply, errors, watches, and one pooled connection.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { apiClients } from '../../src/kube/api-clients.ts';
import { describeApiError, isConflict, isNotFound } from '../../src/kube/api-errors.ts';
import { loadClusterAccess } from '../../src/kube/cluster-access.ts';
import { ListWatch } from '../../src/kube/list-watch.ts';
import { KubeApiError, type WatchEvent } from '../../src/kube/transport.ts';
import { cluster, waitFor, withNamespace } from '../harness/cluster.ts';

function configMap(namespace: string, name: string, data: Record<string, string>): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

describe('the operator transport', () => {
  it('applies, reads and deletes over one kept-alive connection, counting every request', async (t) => {
    const { kubeconfig } = await cluster();
    const namespace = await withNamespace(t, 'transport');
    const requests: string[] = [];
    const clients = apiClients(loadClusterAccess(kubeconfig), {
      onRequest: ({ method, code }) => requests.push(`${method} ${code ?? '<error>'}`),
    });
    t.after(() => clients.transport.close());

    // Server-side apply: the JSON sent as an apply patch, every field kept, the answer parsed as is.
    const applied = await clients.objects.apply(configMap(namespace, 'one', { a: '1' }), 'transport-test');
    assert.deepEqual(applied.data, { a: '1' });
    assert.equal(applied.metadata?.managedFields?.[0]?.manager, 'transport-test');
    assert.equal(typeof applied.metadata?.creationTimestamp, 'string', 'timestamps stay JSON strings');
    // A dry run is admitted and stores nothing.
    await clients.objects.apply(configMap(namespace, 'dry', { b: '2' }), 'transport-test', true);
    const listed = await clients.list<V1ConfigMap>(`/api/v1/namespaces/${namespace}/configmaps`);
    assert.deepEqual(
      listed.items.map((item) => item.metadata?.name).filter((name) => name !== 'kube-root-ca.crt'),
      ['one'],
    );

    // Sequential requests reuse the connection: no new handshake per request.
    for (let i = 0; i < 10; i++) await clients.core.readNamespace({ name: namespace });
    assert.equal(clients.transport.connections(), 1, 'one pooled connection for sequential requests');

    // Errors carry the HTTP code and the Status message, never the body sent.
    const missing = await clients.core
      .readNamespacedSecret({ name: 'nope', namespace })
      .catch((e: unknown) => e);
    assert.ok(missing instanceof KubeApiError);
    assert.ok(isNotFound(missing));
    assert.match(describeApiError(missing), /secrets "nope" not found \(HTTP 404\)/);
    const lease = { metadata: { name: 'held', namespace }, spec: { holderIdentity: 'x' } };
    await clients.coordination.createNamespacedLease({ namespace, body: lease });
    const again = await clients.coordination
      .createNamespacedLease({ namespace, body: lease })
      .catch((e: unknown) => e);
    assert.ok(isConflict(again), String(again));
    const read = await clients.coordination.readNamespacedLease({ name: 'held', namespace });
    assert.equal(read.spec?.holderIdentity, 'x');

    // rest_client_requests_total's view: every request, with its method and code.
    assert.ok(requests.includes('PATCH 201'), requests.join());
    assert.ok(requests.includes('GET 404'), requests.join());
    assert.ok(requests.includes('POST 409'), requests.join());
    assert.ok(requests.filter((r) => r === 'GET 200').length >= 12, requests.join());

    // The readiness probe the outage recovery uses.
    assert.equal(await clients.transport.probe('/readyz', 2_000), true);
  });

  it('lists then watches into a cache: adds, updates, deletes; a refused watch ends with its error', async (t) => {
    const { kubeconfig } = await cluster();
    const namespace = await withNamespace(t, 'listwatch');
    const clients = apiClients(loadClusterAccess(kubeconfig));
    t.after(() => clients.transport.close());
    await clients.objects.apply(configMap(namespace, 'before', { at: 'list' }), 'transport-test');
    const seen: string[] = [];
    const errors: unknown[] = [];
    const cache = new ListWatch<V1ConfigMap>({
      transport: clients.transport,
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      labelSelector: 'test!=other',
      transform: (object) => ({ ...object, metadata: { ...object.metadata, managedFields: undefined } }),
      handlers: {
        onAdd: (object) => seen.push(`add ${object.metadata?.name}`),
        onUpdate: (object) => seen.push(`update ${object.metadata?.name} ${object.data?.at}`),
        onDelete: (object) => seen.push(`delete ${object.metadata?.name}`),
        onError: (error) => errors.push(error),
      },
    });
    await cache.start();
    t.after(() => cache.stop());
    assert.ok(seen.includes('add before'));
    await clients.objects.apply(configMap(namespace, 'during', { at: 'watch' }), 'transport-test');
    await waitFor(() => cache.get('during', namespace), { what: 'the watched ConfigMap in the cache' });
    await clients.objects.apply(configMap(namespace, 'during', { at: 'changed' }), 'transport-test');
    await waitFor(() => cache.get('during', namespace)?.data?.at === 'changed', { what: 'the update' });
    await clients.transport.request('DELETE', `/api/v1/namespaces/${namespace}/configmaps/before`);
    await waitFor(() => cache.get('before', namespace) === undefined, { what: 'the delete' });
    assert.deepEqual(
      seen.filter((line) => !line.includes('kube-root-ca.crt')),
      ['add before', 'add during', 'update during changed', 'delete before'],
    );
    assert.equal(cache.get('during', namespace)?.metadata?.managedFields, undefined, 'the transform ran');
    assert.deepEqual(errors, []);

    // A watch the server refuses (a resourceVersion that is not one) ends with the server's error,
    // as an HTTP error or as an ERROR event carrying a Status.
    const events: WatchEvent[] = [];
    const ended = new Promise<unknown>((resolve) => {
      clients.transport.watch(`/api/v1/namespaces/${namespace}/configmaps`, {
        query: { resourceVersion: 'not-a-version' },
        onEvent: (event) => events.push(event),
        onDone: resolve,
      });
    });
    const error = await ended;
    const event = events.find((candidate) => candidate.type === 'ERROR');
    const code = event ? Number(event.object.code) : (error as KubeApiError | undefined)?.code;
    assert.ok(code !== undefined && code >= 400, `code ${code}, error ${String(error)}`);
  });
});
