import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { ClusterAccess } from '../../../src/kube/cluster-access.ts';
import { Transport, type WatchEvent } from '../../../src/kube/transport.ts';

function access(server: string): ClusterAccess {
  return {
    server,
    tls: { rejectUnauthorized: true },
    authorization: () => Promise.resolve(undefined),
    clientConfig: () => Promise.reject(new Error('not used')),
  };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Serves one watch whose bytes arrive in the given pieces, one write (and one read) each. */
async function watchServedAs(pieces: readonly Buffer[]): Promise<WatchEvent[]> {
  const server = createServer((_request, response: ServerResponse) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.flushHeaders();
    void (async () => {
      for (const piece of pieces) {
        await pause();
        response.write(piece);
      }
      await pause();
      response.end();
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const transport = new Transport(access(`http://127.0.0.1:${port}`));
  try {
    return await new Promise<WatchEvent[]>((resolve, reject) => {
      const events: WatchEvent[] = [];
      transport.watch('/api/v1/pods', {
        onEvent: (event) => events.push(event),
        onDone: (error) => (error ? reject(error as Error) : resolve(events)),
      });
    });
  } finally {
    transport.close();
    server.close();
  }
}

const event = (name: string, label: string) => ({
  type: 'MODIFIED',
  object: { kind: 'Pod', metadata: { name, labels: { note: label } } },
});

describe('Transport.watch', () => {
  it('parses events whatever pieces the stream arrives in: split inside a line and a UTF-8 character, several in one, blank lines', async () => {
    const first = event('a', 'größe');
    const second = event('b', 'plain');
    const third = event('c', '↔ arrows');
    const bytes = Buffer.from(
      `${JSON.stringify(first)}\n\n${JSON.stringify(second)}\n${JSON.stringify(third)}\n`,
      'utf8',
    );
    // Inside "ö" (two bytes), then inside "↔" (three bytes): no piece ends on a character boundary.
    const umlaut = bytes.indexOf(Buffer.from('ö')) + 1;
    const arrow = bytes.indexOf(Buffer.from('↔')) + 2;
    const pieces = [
      bytes.subarray(0, 10),
      bytes.subarray(10, umlaut),
      bytes.subarray(umlaut, arrow),
      bytes.subarray(arrow),
    ];
    assert.deepEqual(await watchServedAs(pieces), [first, second, third]);
  });

  it('ends with the parse error of a line that is not JSON', async () => {
    await assert.rejects(
      watchServedAs([Buffer.from(`${JSON.stringify(event('a', 'x'))}\n{not json}\n`)]),
      SyntaxError,
    );
  });
});
