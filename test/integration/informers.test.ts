// The operator's informers on the local control plane: what they cache from a list and from the watch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResilientInformer } from '../../src/runtime/informers.ts';
import { apiClientsFor } from '../../src/kube/clients.ts';
import { watchedKinds } from '../../src/controllers/minicluster/watched-kinds.ts';
import { cluster, waitFor, withNamespace } from '../harness/cluster.ts';

const LABELS = { test: 'informer' };

describe('ResilientInformer', () => {
  it('caches and hands out objects without managedFields, from the list and from the watch', async (t) => {
    const { kc, core } = await cluster();
    const namespace = await withNamespace(t, 'informer');
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'listed', labels: LABELS }, data: { at: 'list' } },
    });
    const seen: V1ConfigMap[] = [];
    const clients = apiClientsFor(kc);
    const informer = new ResilientInformer<V1ConfigMap>({
      transport: clients.transport,
      kind: watchedKinds(clients).configMaps,
      namespaces: [namespace],
      labelSelector: 'test=informer',
      handlers: {
        onAdd: (object) => seen.push(object),
        onUpdate: (object) => seen.push(object),
        onDelete: () => undefined,
      },
      onError: (_kind, error) => assert.fail(String(error)),
    });
    await informer.start();
    t.after(() => informer.stop());
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'watched', labels: LABELS }, data: { at: 'watch' } },
    });
    await waitFor(() => informer.get('watched', namespace), { what: 'the watched ConfigMap in the cache' });

    // The API server keeps managed fields on both; the cache drops them and keeps the rest.
    for (const name of ['listed', 'watched']) {
      const live = await core.readNamespacedConfigMap({ name, namespace });
      assert.ok((live.metadata?.managedFields?.length ?? 0) > 0, `${name} has managedFields on the server`);
      const cached = informer.get(name, namespace);
      assert.equal(cached?.metadata?.managedFields, undefined, `${name} is cached with managedFields`);
      assert.equal(cached?.metadata?.uid, live.metadata?.uid);
      assert.deepEqual(cached?.data, live.data);
    }
    assert.deepEqual(seen.map((object) => object.metadata?.name).sort(), ['listed', 'watched']);
    assert.ok(seen.every((object) => object.metadata?.managedFields === undefined));
  });
});
