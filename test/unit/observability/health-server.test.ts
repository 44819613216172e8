import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseBindAddress, startObservabilityServers } from '../../../src/observability/health-server.ts';
import type { HealthChecks, ObservabilityServers } from '../../../src/observability/health-server.ts';
import { createOperatorMetrics } from '../../../src/observability/metrics.ts';

const HOST = '127.0.0.1';

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

async function get(port: number | undefined, path: string, method = 'GET'): Promise<Answer> {
  assert.ok(port !== undefined, 'server is listening');
  const response = await fetch(`http://${HOST}:${port}${path}`, { method });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: await response.text(),
  };
}

/** Resolves to whether a TCP connection to the port is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const started: ObservabilityServers[] = [];
after(async () => {
  await Promise.all(started.map((s) => s.close()));
});

async function start(
  checks: HealthChecks = {},
  addresses: { metricsAddr: string; healthAddr: string } = {
    metricsAddr: `${HOST}:0`,
    healthAddr: `${HOST}:0`,
  },
  checkTimeoutMs?: number,
): Promise<ObservabilityServers> {
  const metrics = createOperatorMetrics(new Registry());
  metrics.registerController('minicluster', 2);
  metrics.observeReconcile('minicluster', 'success', 0.05);
  const servers = await startObservabilityServers({
    ...addresses,
    registry: metrics.registry,
    checks,
    ...(checkTimeoutMs === undefined ? {} : { checkTimeoutMs }),
  });
  started.push(servers);
  return servers;
}

describe('parseBindAddress', () => {
  it('reads controller-runtime bind addresses', () => {
    assert.deepEqual(parseBindAddress(':8080'), { host: undefined, port: 8080 });
    assert.deepEqual(parseBindAddress('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
    assert.deepEqual(parseBindAddress('[::1]:9090'), { host: '::1', port: 9090 });
    assert.deepEqual(parseBindAddress('localhost:8081'), { host: 'localhost', port: 8081 });
  });

  it('treats 0 and the empty string as disabled', () => {
    assert.equal(parseBindAddress('0'), undefined);
    assert.equal(parseBindAddress(''), undefined);
  });

  it('rejects what is not host:port', () => {
    assert.throws(() => parseBindAddress('8080'), /expected host:port/);
    assert.throws(() => parseBindAddress('host'), /expected host:port/);
    assert.throws(() => parseBindAddress('::1:80'), /expected host:port/);
    assert.throws(() => parseBindAddress(':70000'), /port out of range/);
  });
});

describe('startObservabilityServers', () => {
  it('serves /metrics in the Prometheus text format', async () => {
    const servers = await start();
    const answer = await get(servers.metricsPort, '/metrics');
    assert.equal(answer.status, 200);
    assert.equal(answer.contentType, 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(
      answer.body,
      /^controller_runtime_reconcile_total\{controller="minicluster",result="success"\} 1$/m,
    );
    assert.match(answer.body, /^# TYPE controller_runtime_reconcile_time_seconds histogram$/m);
    assert.match(answer.body, /^process_resident_memory_bytes \d+/m);
  });

  it('shares one server between equal addresses', async () => {
    const servers = await start();
    assert.equal(servers.metricsPort, servers.healthPort);
    assert.equal((await get(servers.metricsPort, '/metrics')).status, 200);
    assert.equal((await get(servers.healthPort, '/healthz')).status, 200);
  });

  it('answers /healthz with ok, and lists ping when verbose', async () => {
    const servers = await start();
    const plain = await get(servers.healthPort, '/healthz');
    assert.equal(plain.status, 200);
    assert.equal(plain.body, 'ok');
    assert.equal(plain.contentType, 'text/plain; charset=utf-8');
    const verbose = await get(servers.healthPort, '/healthz?verbose');
    assert.equal(verbose.status, 200);
    assert.equal(verbose.body, '[+]ping ok\nhealthz check passed\n');
  });

  it('answers /readyz 503 naming the failing checks until they all pass', async () => {
    let synced = false;
    const servers = await start({
      'informers-synced': () => synced,
      'leader-election': async () => {},
    });
    const failing = await get(servers.healthPort, '/readyz');
    assert.equal(failing.status, 503);
    assert.equal(
      failing.body,
      '[-]informers-synced failed: reason withheld\n[+]leader-election ok\nreadyz check failed\n',
    );

    synced = true;
    const passing = await get(servers.healthPort, '/readyz');
    assert.equal(passing.status, 200);
    assert.equal(passing.body, 'ok');
    const verbose = await get(servers.healthPort, '/readyz?verbose');
    assert.equal(verbose.status, 200);
    assert.equal(verbose.body, '[+]informers-synced ok\n[+]leader-election ok\nreadyz check passed\n');
  });

  it('fails a check that throws, rejects or outlasts the timeout, without telling why', async () => {
    const servers = await start(
      {
        throws: () => {
          throw new Error('secret reason');
        },
        rejects: () => Promise.reject(new Error('secret reason')),
        hangs: () => new Promise(() => {}),
        passes: () => true,
      },
      undefined,
      50,
    );
    const answer = await get(servers.healthPort, '/readyz');
    assert.equal(answer.status, 503);
    assert.match(answer.body, /^\[-\]throws failed: reason withheld$/m);
    assert.match(answer.body, /^\[-\]rejects failed: reason withheld$/m);
    assert.match(answer.body, /^\[-\]hangs failed: reason withheld$/m);
    assert.match(answer.body, /^\[\+\]passes ok$/m);
    assert.doesNotMatch(answer.body, /secret reason/);
  });

  it('serves one check at /readyz/<name> and skips checks named in ?exclude', async () => {
    const servers = await start({ 'informers-synced': () => false, 'leader-election': () => true });
    assert.equal((await get(servers.healthPort, '/readyz/leader-election')).status, 200);
    const one = await get(servers.healthPort, '/readyz/informers-synced');
    assert.equal(one.status, 503);
    assert.match(one.body, /informers-synced failed/);
    const excluded = await get(servers.healthPort, '/readyz?exclude=informers-synced&verbose');
    assert.equal(excluded.status, 200);
    assert.equal(
      excluded.body,
      '[+]informers-synced excluded: ok\n[+]leader-election ok\nreadyz check passed\n',
    );
  });

  it('answers 404 on other paths and 405 on other methods', async () => {
    const servers = await start({ ready: () => true });
    for (const path of [
      '/',
      '/metricsx',
      '/healthz/nope',
      '/readyz/nope',
      '/readyz/ready/x',
      '/readyz/constructor',
      '/constructor',
    ]) {
      assert.equal((await get(servers.healthPort, path)).status, 404, path);
    }
    const post = await get(servers.healthPort, '/readyz', 'POST');
    assert.equal(post.status, 405);
    const head = await get(servers.metricsPort, '/metrics', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  it('keeps metrics and health apart on different addresses', async () => {
    const port = await freePort();
    const servers = await start({}, { metricsAddr: `${HOST}:${port}`, healthAddr: `${HOST}:0` });
    assert.equal(servers.metricsPort, port);
    assert.notEqual(servers.healthPort, port);
    assert.equal((await get(servers.metricsPort, '/metrics')).status, 200);
    assert.equal((await get(servers.metricsPort, '/healthz')).status, 404);
    assert.equal((await get(servers.healthPort, '/healthz')).status, 200);
    assert.equal((await get(servers.healthPort, '/metrics')).status, 404);
  });

  it('disables a server whose address is 0', async () => {
    const servers = await start({}, { metricsAddr: '0', healthAddr: `${HOST}:0` });
    assert.equal(servers.metricsPort, undefined);
    assert.equal((await get(servers.healthPort, '/healthz')).status, 200);
    assert.equal((await get(servers.healthPort, '/metrics')).status, 404);
    const none = await start({}, { metricsAddr: '0', healthAddr: '0' });
    assert.equal(none.metricsPort, undefined);
    assert.equal(none.healthPort, undefined);
    await none.close();
  });

  it('leaves nothing listening after close(), even with a keep-alive connection open', async () => {
    const servers = await startObservabilityServers({
      metricsAddr: `${HOST}:0`,
      healthAddr: `${HOST}:0`,
      registry: new Registry(),
    });
    const port = servers.healthPort;
    assert.ok(port !== undefined);
    assert.equal(await accepts(port), true);
    // fetch keeps its connection alive: close() must not wait for it.
    assert.equal((await get(port, '/healthz')).status, 200);
    await servers.close();
    assert.equal(await accepts(port), false);
    await servers.close();
  });

  it('rejects when an address is taken, closing what it had started', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, HOST, resolve));
    const taken = (blocker.address() as AddressInfo).port;
    const metricsPort = await freePort();
    try {
      await assert.rejects(
        startObservabilityServers({
          metricsAddr: `${HOST}:${metricsPort}`,
          healthAddr: `${HOST}:${taken}`,
          registry: new Registry(),
        }),
        /EADDRINUSE/,
      );
      assert.equal(await accepts(metricsPort), false, 'the metrics server was closed again');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
