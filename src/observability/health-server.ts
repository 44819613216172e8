/**
 * The operator's HTTP endpoints, on node:http: `/metrics` (Prometheus text format) on the metrics
 * address, `/healthz` and `/readyz` (Kubernetes-style named checks) on the health address. Addresses
 * are controller-runtime's bind addresses: `:8080` (all interfaces), `127.0.0.1:8081`, `[::1]:0`
 * (any free port), or `0` (disabled). Equal addresses share one server.
 */
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { MetricsAuthorizer } from './metrics-auth.ts';
import { settleWithin } from './settle-within.ts';

/**
 * A named check. It passes unless it returns (or resolves to) `false`, throws, rejects, or outlasts
 * the timeout: `() => informers.synced` and `async () => { await ping(); }` both work.
 */
export type HealthCheck = () => unknown;
export type HealthChecks = Readonly<Record<string, HealthCheck>>;

export interface ObservabilityServerOptions {
  /** Bind address of /metrics; `0` disables it. */
  readonly metricsAddr: string;
  /** Bind address of /healthz and /readyz; `0` disables them. */
  readonly healthAddr: string;
  readonly registry: Registry;
  /** Readiness checks of /readyz, e.g. `{ 'informers-synced': () => informers.synced }`. */
  readonly checks?: HealthChecks;
  /** Liveness checks of /healthz; by default only `ping` (the process answers). */
  readonly livenessChecks?: HealthChecks;
  /** How long one check may take before it counts as failed. Default 5 s. */
  readonly checkTimeoutMs?: number;
  /** The connections' limits; ENDPOINT_LIMITS unless given (tests shorten them). */
  readonly limits?: EndpointLimits;
  /**
   * /metrics over HTTPS with this certificate, to the requests `metricsAuth` allows (metrics-auth.ts):
   * for an address the pod network reaches. Both or neither.
   */
  readonly metricsTls?: { readonly certificate: string; readonly key: string };
  readonly metricsAuth?: MetricsAuthorizer;
}

/**
 * What a client of the endpoints gets, whatever it sends (they are unauthenticated): node:http
 * answers a malformed request 400, a head over maxHeaderBytes 431, a head or request that does not
 * arrive in time 408, and closes the connection; a connection idle (or not reading) for idleMs is
 * closed. Kubelet probes and Prometheus scrapes are far within them.
 */
export interface EndpointLimits {
  readonly maxHeaderBytes: number;
  readonly maxHeaders: number;
  /** Requests one connection may make (beyond: 503, then closed): pipelined scrapes cost no more. */
  readonly maxRequestsPerConnection: number;
  /**
   * Answers a connection may leave unread beyond what the sockets hold: a client that asks
   * (pipelining) without reading is dropped instead of having its answers pile up in memory.
   */
  readonly maxUnreadBytes: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly idleMs: number;
  /** How often node:http looks for connections past headersTimeoutMs or requestTimeoutMs. */
  readonly checkIntervalMs: number;
}

export const ENDPOINT_LIMITS: EndpointLimits = {
  maxHeaderBytes: 16 * 1024,
  maxHeaders: 100,
  maxRequestsPerConnection: 100,
  maxUnreadBytes: 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  idleMs: 30_000,
  checkIntervalMs: 1_000,
};

export interface ObservabilityServers {
  /** The port /metrics listens on, or undefined when disabled. */
  readonly metricsPort: number | undefined;
  /** The port /healthz and /readyz listen on, or undefined when disabled. */
  readonly healthPort: number | undefined;
  /** Stops listening and drops open connections; resolves once the servers are closed. */
  close(): Promise<void>;
}

export interface BindAddress {
  /** undefined: every interface. */
  readonly host: string | undefined;
  readonly port: number;
}

/** Parses a bind address; undefined means disabled (`0`, or empty). */
export function parseBindAddress(address: string): BindAddress | undefined {
  const text = address.trim();
  if (text === '' || text === '0') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  if (!match) {
    throw new Error(`invalid bind address ${JSON.stringify(address)}: expected host:port, :port or 0`);
  }
  const port = Number(match[3]);
  if (port > 65535) throw new Error(`invalid bind address ${JSON.stringify(address)}: port out of range`);
  const host = match[1] ?? match[2];
  return { host: host === '' ? undefined : host, port };
}

interface CheckOutcome {
  readonly name: string;
  readonly ok: boolean;
  readonly excluded: boolean;
}

function runCheck(check: HealthCheck, timeoutMs: number): Promise<boolean> {
  // Through a then: a check that throws at once fails like one that rejects.
  const passed = Promise.resolve()
    .then(check)
    .then((result) => result !== false);
  return settleWithin(passed, timeoutMs, false);
}

/**
 * Runs the checks (all of them, concurrently) the Kubernetes way: `?exclude=name` skips one,
 * the answer lists `[+]name ok` / `[-]name failed: reason withheld` per check. Reasons are never
 * shown: the endpoint is unauthenticated.
 */
async function answerChecks(
  endpoint: string,
  checks: HealthChecks,
  url: URL,
  timeoutMs: number,
  response: ServerResponse,
): Promise<void> {
  const excluded = new Set(url.searchParams.getAll('exclude'));
  const names = Object.keys(checks);
  const outcomes: CheckOutcome[] = await Promise.all(
    names.map(async (name): Promise<CheckOutcome> => {
      if (excluded.has(name)) return { name, ok: true, excluded: true };
      const check = checks[name];
      return { name, ok: check === undefined ? false : await runCheck(check, timeoutMs), excluded: false };
    }),
  );
  const lines = outcomes.map((outcome) => {
    if (outcome.excluded) return `[+]${outcome.name} excluded: ok`;
    return outcome.ok ? `[+]${outcome.name} ok` : `[-]${outcome.name} failed: reason withheld`;
  });
  const unknown = [...excluded].filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    lines.push(
      `warn: some health checks cannot be excluded: no matches for ${unknown.map((n) => JSON.stringify(n)).join(',')}`,
    );
  }
  const failed = outcomes.some((outcome) => !outcome.ok);
  if (failed) {
    sendText(response, 503, `${lines.join('\n')}\n${endpoint} check failed\n`);
  } else if (url.searchParams.has('verbose')) {
    sendText(response, 200, `${lines.join('\n')}\n${endpoint} check passed\n`);
  } else {
    sendText(response, 200, 'ok');
  }
}

async function answerOneCheck(
  name: string,
  check: HealthCheck,
  timeoutMs: number,
  response: ServerResponse,
): Promise<void> {
  if (await runCheck(check, timeoutMs)) sendText(response, 200, 'ok');
  else sendText(response, 503, `[-]${name} failed: reason withheld\n`);
}

function sendText(response: ServerResponse, status: number, body: string, contentType?: string): void {
  response.writeHead(status, {
    'Content-Type': contentType ?? 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

async function answerMetrics(registry: Registry, response: ServerResponse): Promise<void> {
  let text: string;
  try {
    text = await registry.metrics();
  } catch (error) {
    sendText(response, 500, `error gathering metrics: ${(error as Error).message}\n`);
    return;
  }
  sendText(response, 200, text, registry.contentType);
}

interface Routes {
  readonly metrics: boolean;
  readonly health: boolean;
}

function handler(
  options: ObservabilityServerOptions,
  routes: Routes,
): (request: IncomingMessage, response: ServerResponse) => void {
  const timeoutMs = options.checkTimeoutMs ?? 5000;
  // An endpoint without checks answers with `ping`, as controller-runtime's do.
  const orPing = (checks: HealthChecks | undefined): HealthChecks =>
    checks !== undefined && Object.keys(checks).length > 0 ? checks : { ping: () => true };
  const endpoints = new Map<string, HealthChecks>([
    ['healthz', orPing(options.livenessChecks)],
    ['readyz', orPing(options.checks)],
  ]);

  const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (routes.metrics && path === '/metrics') {
      if (!isRead(request, response)) return;
      if (options.metricsAuth !== undefined && !(await admitted(options.metricsAuth, request, response)))
        return;
      await answerMetrics(options.registry, response);
      return;
    }
    if (routes.health) {
      const [, endpoint, checkName, ...rest] = path.split('/');
      const checks = endpoint === undefined ? undefined : endpoints.get(endpoint);
      if (endpoint !== undefined && checks !== undefined && rest.length === 0) {
        if (checkName === undefined) {
          if (!isRead(request, response)) return;
          await answerChecks(endpoint, checks, url, timeoutMs, response);
          return;
        }
        const check = Object.hasOwn(checks, checkName) ? checks[checkName] : undefined;
        if (check !== undefined) {
          if (!isRead(request, response)) return;
          await answerOneCheck(checkName, check, timeoutMs, response);
          return;
        }
      }
    }
    sendText(response, 404, '404 page not found\n');
  };

  const maxUnread = (options.limits ?? ENDPOINT_LIMITS).maxUnreadBytes;
  return (request, response) => {
    if (request.socket.writableLength > maxUnread) {
      request.socket.destroy();
      return;
    }
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendText(response, 500, `internal error: ${(error as Error).message}\n`);
      else response.destroy();
    });
  };
}

/** Answers 401, 403 or 429 and returns false unless the request's bearer token may read /metrics. */
async function admitted(
  authorizer: MetricsAuthorizer,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<boolean> {
  const decision = await authorizer.decide(request.headers.authorization);
  if (decision === 'allowed') return true;
  if (decision === 'unauthenticated') {
    response.setHeader('WWW-Authenticate', 'Bearer realm="flux-operator metrics"');
    sendText(response, 401, 'Unauthorized: a bearer token the API server authenticates is needed\n');
  } else if (decision === 'forbidden') {
    sendText(
      response,
      403,
      "Forbidden: the token's user may not get /metrics (ClusterRole flux-operator-metrics-reader)\n",
    );
  } else {
    response.setHeader('Retry-After', '1');
    sendText(response, 429, 'Too many requests: try again\n');
  }
  return false;
}

function isRead(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  response.setHeader('Allow', 'GET, HEAD');
  sendText(response, 405, 'method not allowed\n');
  return false;
}

function listen(server: Server, address: BindAddress): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(address.port, address.host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive connections (Prometheus scrapes, kubelet probes) would hold close() open.
    server.closeAllConnections();
  });
}

/** Starts the metrics and health servers (one when their addresses are equal). */
export async function startObservabilityServers(
  options: ObservabilityServerOptions,
): Promise<ObservabilityServers> {
  const metricsAddress = parseBindAddress(options.metricsAddr);
  const healthAddress = parseBindAddress(options.healthAddr);
  // Equal addresses (`:0` and `:0` included) share one server.
  const shared =
    metricsAddress !== undefined &&
    healthAddress !== undefined &&
    metricsAddress.host === healthAddress.host &&
    metricsAddress.port === healthAddress.port;

  const servers: Server[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(servers.map(closeServer));
  };
  const limits = options.limits ?? ENDPOINT_LIMITS;
  if ((options.metricsTls === undefined) !== (options.metricsAuth === undefined)) {
    throw new Error('secure metrics need both a certificate and an authorizer');
  }
  if (shared && options.metricsTls !== undefined) {
    throw new Error(
      'secure metrics (HTTPS) need an address of their own: the kubelet probes /healthz and /readyz over plain HTTP; give --metrics-addr and --health-addr different ports',
    );
  }
  const start = async (address: BindAddress, routes: Routes): Promise<number> => {
    const settings = {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    };
    const tls = routes.metrics ? options.metricsTls : undefined;
    const server: Server =
      tls === undefined
        ? createServer(settings, handler(options, routes))
        : (createTlsServer(
            { ...settings, cert: tls.certificate, key: tls.key, minVersion: 'TLSv1.2' },
            handler(options, routes),
          ) as unknown as Server);
    server.maxHeadersCount = limits.maxHeaders;
    server.maxRequestsPerSocket = limits.maxRequestsPerConnection;
    server.setTimeout(limits.idleMs);
    servers.push(server);
    return listen(server, address);
  };

  try {
    let metricsPort: number | undefined;
    let healthPort: number | undefined;
    if (metricsAddress !== undefined && shared) {
      metricsPort = await start(metricsAddress, { metrics: true, health: true });
      healthPort = metricsPort;
    } else {
      if (metricsAddress !== undefined)
        metricsPort = await start(metricsAddress, { metrics: true, health: false });
      if (healthAddress !== undefined)
        healthPort = await start(healthAddress, { metrics: false, health: true });
    }
    return { metricsPort, healthPort, close };
  } catch (error) {
    await close();
    throw error;
  }
}
