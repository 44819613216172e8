import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { REQUEST_IDLE_TIMEOUT_MS, Transport } from '../../../src/kube/transport.ts';

describe('a request on a connection that goes silent', () => {
  it('fails once the connection is silent for the idle timeout, instead of holding its caller forever', async () => {
    const held: ServerResponse[] = [];
    // Answers /quick at once; holds every other request without a byte, as a server lost mid-request.
    const server = createServer((request, response) => {
      if (request.url === '/quick') response.end('{"ok":true}');
      else held.push(response);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const transport = new Transport(
      {
        server: `http://127.0.0.1:${port}`,
        tls: { rejectUnauthorized: true },
        authorization: () => Promise.resolve(undefined),
        clientConfig: () => Promise.reject(new Error('not used')),
      },
      { requestIdleTimeoutMs: 300 },
    );
    try {
      assert.deepEqual(await transport.request('GET', '/quick'), { ok: true });
      const started = Date.now();
      const error = await transport.request('GET', '/held').then(
        () => assert.fail('a request no one answered succeeded'),
        (thrown: unknown) => thrown as Error,
      );
      assert.equal(error.name, 'TimeoutError');
      assert.match(error.message, /no answer in 300 ms/);
      assert.ok(Date.now() - started >= 290, `failed after ${Date.now() - started} ms`);
      assert.equal(held.length, 1);
      // A caller's own bound wins over the default.
      const own = await transport.request('GET', '/held', { timeoutMs: 100 }).then(
        () => assert.fail('a request no one answered succeeded'),
        (thrown: unknown) => thrown as Error,
      );
      assert.match(own.message, /no answer in 100 ms/);
      // The operator's default: past the API server's own 60 s request timeout.
      assert.ok(REQUEST_IDLE_TIMEOUT_MS > 60_000);
    } finally {
      transport.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
