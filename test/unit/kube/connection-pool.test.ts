import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { RequestContext, HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import { poolConnections } from '../../../src/kube/connection-pool.ts';

function config(server: string, certData = 'Y2VydA=='): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', certData, keyData: 'a2V5' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

async function dispatcherOf(kc: KubeConfig): Promise<unknown> {
  const context = new RequestContext('https://example.invalid/api', HttpMethod.GET);
  await kc.applySecurityAuthentication(context);
  return context.getDispatcher();
}

describe('poolConnections', () => {
  it('gives every request of a config the same dispatcher (the client alone builds one per request)', async () => {
    const plain = config('https://example.invalid');
    assert.notEqual(await dispatcherOf(plain), await dispatcherOf(plain), 'the cause this module removes');
    const pooled = poolConnections(config('https://example.invalid'));
    const first = await dispatcherOf(pooled);
    assert.ok(first);
    assert.equal(await dispatcherOf(pooled), first);
    assert.equal(poolConnections(pooled), pooled, 'idempotent');
    assert.equal(await dispatcherOf(pooled), first);
  });

  it('replaces the dispatcher when the TLS material changes (a rotated client certificate)', async () => {
    const pooled = poolConnections(config('https://example.invalid'));
    const first = await dispatcherOf(pooled);
    const user = pooled.getCurrentUser();
    assert.ok(user);
    (user as { certData?: string }).certData = 'bmV3';
    const second = await dispatcherOf(pooled);
    assert.notEqual(second, first);
    assert.equal(await dispatcherOf(pooled), second);
  });

  describe('against a server', () => {
    let server: Server;
    let connections = 0;
    let url = '';

    before(async () => {
      server = createServer((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ apiVersion: 'v1', kind: 'NamespaceList', metadata: {}, items: [] }));
      });
      server.on('connection', () => (connections += 1));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    after(() => {
      server.closeAllConnections();
      server.close();
    });

    async function connectionsFor(kc: KubeConfig, requests: number): Promise<number> {
      const api = kc.makeApiClient(CoreV1Api);
      connections = 0;
      for (let i = 0; i < requests; i++) assert.deepEqual((await api.listNamespace()).items, []);
      return connections;
    }

    it('sends requests over kept-alive connections rather than one connection each', async () => {
      assert.equal(await connectionsFor(config(url), 10), 10, 'the cause this module removes');
      // undici returns a socket to the pool a tick after the response: the next request may open
      // a second connection, never more when they are sequential.
      assert.ok((await connectionsFor(poolConnections(config(url)), 10)) <= 2);
    });
  });
});
