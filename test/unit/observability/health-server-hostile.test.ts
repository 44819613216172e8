// The operator's unauthenticated endpoints (/metrics, /healthz, /readyz) against hostile clients,
// over real sockets on loopback: malformed HTTP, huge heads, bodies where none belongs, path
// traversal, slow senders and a reader that never reads. Each gets one clear status (or its
// connection closed), the endpoints keep answering, and neither threads nor connections are left.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Gauge, Registry } from 'prom-client';
import {
  ENDPOINT_LIMITS,
  startObservabilityServers,
  type ObservabilityServers,
} from '../../../src/observability/health-server.ts';
import { createOperatorMetrics } from '../../../src/observability/metrics.ts';

const HOST = '127.0.0.1';
/** Short enough for a test; the shape of ENDPOINT_LIMITS. */
const LIMITS = {
  ...ENDPOINT_LIMITS,
  headersTimeoutMs: 500,
  requestTimeoutMs: 800,
  idleMs: 700,
  checkIntervalMs: 100,
};

function threads(): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Threads:'));
  return Number(line?.split(/\s+/)[1]);
}

/** What the server answers to these bytes, read until it closes the connection. */
function exchange(port: number, data: string | Buffer, endWrite = true): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: HOST, port });
    let answer = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve(answer) : reject(error),
    );
    socket.on('close', () => resolve(answer));
    socket.write(data);
    if (endWrite) socket.end();
  });
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1]);
}

describe('the operator endpoints against hostile clients', () => {
  let servers: ObservabilityServers;
  let port: number;
  const registry = new Registry();

  before(async () => {
    createOperatorMetrics(registry);
    // Scrapes of some size (about 80 KiB), as a busy operator's are: a reader that takes none of
    // them fills the sockets' buffers.
    const gauge = new Gauge({
      name: 'test_series',
      help: 'Many series.',
      labelNames: ['name'],
      registers: [registry],
    });
    for (let index = 0; index < 2000; index += 1) gauge.set({ name: `minicluster-${index}` }, index);
    servers = await startObservabilityServers({
      metricsAddr: `${HOST}:0`,
      healthAddr: `${HOST}:0`,
      registry,
      limits: LIMITS,
    });
    // One server for both: every route on one port.
    assert.ok(servers.metricsPort !== undefined && servers.healthPort !== undefined);
    port = servers.metricsPort;
    await fetch(`http://${HOST}:${port}/metrics`).then((response) => response.text());
  });
  after(() => servers.close());

  async function healthy(): Promise<boolean> {
    const response = await fetch(`http://${HOST}:${servers.healthPort}/healthz`);
    return response.status === 200 && (await response.text()) === 'ok';
  }

  it('answers malformed and hostile requests with one clear status each', async () => {
    const before = threads();
    const cases: [string, string | Buffer, number][] = [
      ['garbage', 'GARBAGE\r\n\r\n', 400],
      ['bad header', 'GET /metrics HTTP/1.1\r\nno colon\r\n\r\n', 400],
      ['NUL in a header', 'GET /metrics HTTP/1.1\r\nA: b\u0000c\r\n\r\n', 400],
      [
        'huge header',
        `GET /metrics HTTP/1.1\r\nX-Big: ${'b'.repeat(LIMITS.maxHeaderBytes + 1)}\r\n\r\n`,
        431,
      ],
      ['traversal', 'GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n', 404],
      ['encoded traversal', 'GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n', 404],
      ['check traversal', 'GET /healthz/../../readyz/x HTTP/1.1\r\nHost: x\r\n\r\n', 404],
      [
        'a JSON body to /metrics',
        'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n{not json',
        405,
      ],
      ['bad Content-Length', 'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n', 400],
      [
        'two Content-Lengths',
        'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
        400,
      ],
      ['chunked body', 'POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 405],
    ];
    for (const [name, data, status] of cases) {
      assert.equal(statusOf(await exchange(port, data)), status, name);
    }
    assert.ok(await healthy());
    assert.equal(threads(), before);
  });

  it('closes a connection whose head does not arrive in time, or that says nothing: 408', async () => {
    for (const data of ['GET /metrics HTTP/1.1\r\nX-Slow: ', '']) {
      const started = Date.now();
      // Sent without end: the server must close it by itself.
      const answer = await exchange(port, data, false);
      assert.equal(answer, 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
    }
    assert.ok(await healthy());
  });

  it('drops a reader that never reads, and keeps answering others', async () => {
    const before = threads();
    const socket: Socket = connect({ host: HOST, port });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.pause();
    // Scrapes asked at once, none read: far more than the sockets' buffers hold.
    const asked = LIMITS.maxRequestsPerConnection;
    socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(asked));
    const scrape = await fetch(`http://${HOST}:${port}/metrics`).then((response) => response.text());
    assert.ok(scrape.length > 50_000, `${scrape.length} bytes a scrape`);
    await sleep(LIMITS.idleMs * 3);
    const asking = Date.now();
    assert.ok(await healthy());
    assert.ok(Date.now() - asking < 1_000, 'the others are answered at once');
    // Now read: what the server had sent, then the end, long before every answer came.
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined);
    socket.resume();
    await Promise.race([
      new Promise<void>((resolve) => socket.once('close', () => resolve())),
      sleep(10_000).then(() => assert.fail('the server kept a connection that read nothing')),
    ]);
    assert.ok(received < (asked * scrape.length) / 2, `${received} bytes of ${asked} answers`);
    assert.equal(threads(), before);
  });
});
