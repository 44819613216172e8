/**
 * The operator's own HTTP transport to its API server: JSON requests and watch streams over one
 * keep-alive connection pool (node:https), authenticated from a ClusterAccess. The official client
 * is not loaded for any of it (docs/performance.md: its import is most of the operator's memory).
 *
 * Errors: an HTTP error is a KubeApiError (`code`, `body` as text, `headers`), the shape of the
 * client's ApiException, so api-errors.ts maps both the same way; a request that got no response
 * rejects with the socket's error (no `code` number: transient).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { ClusterAccess } from './cluster-access.ts';

export class KubeApiError extends Error {
  override name = 'KubeApiError';
  /** The HTTP status code. */
  readonly code: number;
  /** The response body as text (a Status object, as JSON, from the API server). */
  readonly body: string;
  readonly headers: Record<string, string>;

  constructor(code: number, body: string, headers: Record<string, string>) {
    // The Status message, never the body itself (it can echo the object sent).
    super(`HTTP ${code}: ${statusMessage(body) ?? 'unsuccessful request'}`);
    this.code = code;
    this.body = body;
    this.headers = headers;
  }
}

function statusMessage(body: string): string | undefined {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    return typeof status.message === 'string' ? status.message : undefined;
  } catch {
    return undefined;
  }
}

/** A request as the transport saw it once answered. */
export interface AnsweredRequest {
  readonly method: string;
  /** The path and query as sent, below the server's URL. */
  readonly path: string;
  readonly contentType: string | undefined;
  /** The HTTP code; undefined: no response. */
  readonly code: number | undefined;
}

/** Sees every request (watches too) once it is answered. */
export type RequestObserver = (request: AnsweredRequest) => void;

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RequestOptions {
  readonly query?: Query;
  /** Sent as JSON unless already a string. */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly timeoutMs?: number;
}

/** One watch event as the API server streams it. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: Record<string, unknown>;
}

export interface WatchOptions {
  readonly query?: Query;
  /** Every event, in order. */
  readonly onEvent: (event: WatchEvent) => void;
  /** Once: the stream ended (undefined: closed normally or timed out) or failed. */
  readonly onDone: (error: unknown) => void;
}

/**
 * A request (not a watch) whose connection is silent this long is taken for dead and fails, so that a
 * connection lost without a reset (a server killed mid-request, a network gone) cannot hold a
 * reconcile pass forever. The API server answers every such request within its own 60 s
 * (--request-timeout), with a 504 at worst.
 */
export const REQUEST_IDLE_TIMEOUT_MS = 75_000;

/** Server-side watch timeout, random in [5, 10) minutes as client-go's reflector picks it. */
function watchTimeoutSeconds(): number {
  return 300 + Math.floor(Math.random() * 300);
}

const NEWLINE = 0x0a;

/** How long past its server-side timeout a silent watch is taken for dead. */
const WATCH_GRACE_MS = 60_000;

function headersOf(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

// Events rather than `for await`: the stream's async iterator costs several times as much per
// response (it destroys the message once read, through the error path).
function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('close', () => {
      if (!response.complete) reject(new Error('the connection closed before the response ended'));
    });
  });
}

export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export class Transport {
  readonly access: ClusterAccess;
  private readonly agent: HttpAgent;
  private readonly url: URL;
  private readonly send: typeof httpsRequest;
  private readonly onRequest: RequestObserver;

  private readonly requestIdleTimeoutMs: number;

  constructor(
    access: ClusterAccess,
    options: { onRequest?: RequestObserver; requestIdleTimeoutMs?: number } = {},
  ) {
    this.access = access;
    this.requestIdleTimeoutMs = options.requestIdleTimeoutMs ?? REQUEST_IDLE_TIMEOUT_MS;
    this.url = new URL(access.server);
    const secure = this.url.protocol === 'https:';
    // keepAlive: every request after the first reuses an open connection (no handshake); watches
    // hold one connection each, for as long as they run. One SecureContext for all of them: given
    // the CA, certificate and key instead, node:tls parses them again for each new connection and
    // the agent joins their text into its pool key at every request.
    const { ca, cert, key, ...verify } = access.tls;
    this.agent = secure
      ? new HttpsAgent({
          keepAlive: true,
          maxFreeSockets: 16,
          scheduling: 'lifo',
          secureContext: createSecureContext({ ca, cert, key }),
          ...verify,
        })
      : new HttpAgent({ keepAlive: true, maxFreeSockets: 16, scheduling: 'lifo' });
    this.send = secure ? httpsRequest : httpRequest;
    this.onRequest = options.onRequest ?? (() => undefined);
  }

  /** A request whose JSON answer is returned parsed; an HTTP error rejects with KubeApiError. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const text = await this.requestText(method, path, options);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** A request whose answer is returned as text (a pod's log); an HTTP error rejects with KubeApiError. */
  async requestText(method: string, path: string, options: RequestOptions = {}): Promise<string> {
    const body =
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body);
    const response = await this.open(method, `${path}${queryString(options.query)}`, {
      ...(body !== undefined ? { body, contentType: options.contentType ?? 'application/json' } : {}),
      timeoutMs: options.timeoutMs ?? this.requestIdleTimeoutMs,
    });
    const text = await readBody(response);
    const code = response.statusCode ?? 0;
    if (code < 200 || code > 299) throw new KubeApiError(code, text, headersOf(response));
    return text;
  }

  /** True when GET `path` answers 200 within `timeoutMs` (readiness probes). */
  async probe(path: string, timeoutMs: number): Promise<boolean> {
    try {
      const response = await this.open('GET', path, { timeoutMs });
      response.resume();
      return response.statusCode === 200;
    } catch {
      return false;
    }
  }

  /**
   * Watches `path` (a collection) from the query's resourceVersion, with bookmarks and a server-side
   * timeout. Returns how to stop it (onDone is then not called).
   */
  watch(path: string, options: WatchOptions): () => void {
    let done = false;
    let stop: () => void = () => {
      done = true;
    };
    const finish = (error: unknown) => {
      if (done) return;
      done = true;
      options.onDone(error);
    };
    const timeoutSeconds = watchTimeoutSeconds();
    const query = { ...options.query, watch: 'true', allowWatchBookmarks: 'true', timeoutSeconds };
    this.open('GET', `${path}${queryString(query)}`, {
      timeoutMs: timeoutSeconds * 1000 + WATCH_GRACE_MS,
      onRequest: (request) => {
        stop = () => {
          done = true;
          request.destroy();
        };
      },
    }).then(
      async (response) => {
        if (done) {
          response.destroy();
          return;
        }
        if (response.statusCode !== 200) {
          finish(new KubeApiError(response.statusCode ?? 0, await readBody(response), headersOf(response)));
          return;
        }
        // Bytes, split at newlines (never inside a UTF-8 sequence), each line decoded once: no
        // growing string of the stream, which JSON.parse would first have to flatten.
        const partial: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          let start = 0;
          let end: number;
          while (!done && (end = chunk.indexOf(NEWLINE, start)) >= 0) {
            const tail = chunk.subarray(start, end);
            start = end + 1;
            const line = (partial.length === 0 ? tail : Buffer.concat([...partial.splice(0), tail])).toString(
              'utf8',
            );
            if (line.trim() === '') continue;
            let event: WatchEvent;
            try {
              event = JSON.parse(line) as WatchEvent;
            } catch (error) {
              finish(error);
              response.destroy();
              return;
            }
            options.onEvent(event);
          }
          if (start < chunk.length) partial.push(chunk.subarray(start));
        });
        response.on('end', () => finish(undefined));
        response.on('error', (error) => finish(error));
        response.on('close', () => finish(undefined));
      },
      (error: unknown) => finish(error),
    );
    return () => stop();
  }

  /** Open connections to the server, idle or in use (tests: requests must share them). */
  connections(): number {
    const count = (sockets: NodeJS.Dict<unknown[]>) =>
      Object.values(sockets).reduce((sum, list) => sum + (list?.length ?? 0), 0);
    return count(this.agent.sockets) + count(this.agent.freeSockets);
  }

  /** Closes idle connections (those in use close when their requests end). */
  close(): void {
    this.agent.destroy();
  }

  private async open(
    method: string,
    pathAndQuery: string,
    options: {
      body?: string;
      contentType?: string;
      timeoutMs?: number;
      onRequest?: (request: ReturnType<typeof httpsRequest>) => void;
    },
  ): Promise<IncomingMessage> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const authorization = await this.access.authorization();
    if (authorization !== undefined) headers.Authorization = authorization;
    if (options.body !== undefined) {
      headers['Content-Type'] = options.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(options.body));
    }
    const seen = { method, path: pathAndQuery, contentType: headers['Content-Type'] };
    return new Promise<IncomingMessage>((resolve, reject) => {
      let answered = false;
      const request = this.send(
        {
          agent: this.agent,
          method,
          protocol: this.url.protocol,
          hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
          port: this.url.port,
          path: `${this.url.pathname.replace(/\/$/, '')}${pathAndQuery}`,
          headers,
        },
        (response) => {
          answered = true;
          this.onRequest({ ...seen, code: response.statusCode });
          resolve(response);
        },
      );
      options.onRequest?.(request);
      if (options.timeoutMs !== undefined) {
        // An idle socket for this long: the request (or the watch stream) is taken for dead.
        request.setTimeout(options.timeoutMs, () =>
          request.destroy(
            Object.assign(new Error(`no answer in ${options.timeoutMs} ms`), { name: 'TimeoutError' }),
          ),
        );
      }
      request.on('error', (error) => {
        if (!answered) this.onRequest({ ...seen, code: undefined });
        reject(error);
      });
      request.end(options.body);
    });
  }
}
