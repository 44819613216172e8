// A stand-in API server on loopback for unit tests of the caches (list-watch, the runtime's manager):
// the test's handler answers, and a Transport of the operator's own reaches it.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transport } from '../../../src/kube/transport.ts';

export interface LoopbackApi {
  readonly transport: Transport;
  /** Closes the transport and every connection still open, then the server. */
  close(): void;
}

export async function loopbackApi(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LoopbackApi> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const transport = new Transport({
    server: `http://127.0.0.1:${port}`,
    tls: { rejectUnauthorized: true },
    authorization: () => Promise.resolve(undefined),
    clientConfig: () => Promise.reject(new Error('not used')),
  });
  return {
    transport,
    close: () => {
      transport.close();
      server.closeAllConnections();
      server.close();
    },
  };
}
