import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ListWatch } from '../../../src/kube/list-watch.ts';
import { Transport } from '../../../src/kube/transport.ts';

describe('ListWatch', () => {
  it('keeps one watch however many starts race, and stop() closes it', async () => {
    const open = new Set<ServerResponse>();
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (!request.url?.includes('watch=true')) {
        response.end(JSON.stringify({ metadata: { resourceVersion: '7' }, items: [] }));
        return;
      }
      // A watch: headers now, events never; the stream stays open until the client closes it.
      response.flushHeaders();
      open.add(response);
      response.on('close', () => open.delete(response));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const transport = new Transport({
      server: `http://127.0.0.1:${port}`,
      tls: { rejectUnauthorized: true },
      authorization: () => Promise.resolve(undefined),
      clientConfig: () => Promise.reject(new Error('not used')),
    });
    const cache = new ListWatch<KubernetesObject>({
      transport,
      path: '/api/v1/pods',
      handlers: {
        onAdd: () => undefined,
        onUpdate: () => undefined,
        onDelete: () => undefined,
        onError: () => undefined,
      },
    });
    try {
      await Promise.all([cache.start(), cache.start(), cache.start()]);
      await sleep(100);
      assert.equal(open.size, 1, 'one watch open');
      cache.stop();
      await sleep(100);
      assert.equal(open.size, 0, 'no watch left after stop()');
    } finally {
      cache.stop();
      transport.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
