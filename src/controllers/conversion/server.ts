/**
 * The conversion webhook's HTTPS server: `POST /convert` with a ConversionReview (JSON) answered by
 * review.ts. Bounded: a body limit (413 past it), connections and requests per peer address, and a
 * fair share of the body bytes held (PEER_LIMITS: 429 past them), a time limit on headers and on the whole
 * request, idle keep-alive connections closed. The certificate is swapped in place (setSecureContext): new
 * connections get the renewed one, without a restart or a dropped connection. Draining (the pod is
 * going), it still answers, closing each connection after its answer.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONVERSION_WEBHOOK_PATH } from '../../api/index.ts';
import type { BindAddress } from '../../observability/health-server.ts';
import {
  answerConversionReview,
  parseConversionReview,
  type ConversionFailure,
  type MiniClusterConverter,
} from './review.ts';
import type { CertificateAndKey } from './certificates.ts';

/**
 * Largest body accepted. The API server sends every object of a list that needs converting in one
 * review, and lists come in pages (kubectl and informers ask 500 objects at a time); a MiniCluster is
 * a few KiB, so a page is a few MiB. 16 MiB leaves room for 500 objects of 32 KiB.
 */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * What one peer (a remote address) may hold of the server at once, and all of them together. The
 * webhook is reachable from the pod network, not only from the API server. The bodies held are
 * shared fairly: each peer with a request under way may hold the total over their number (never less
 * than a small review, never more than a body), so a pod that floods the webhook is cut off at its
 * share while the API server, another address, still gets its conversions answered, and memory stays
 * within the total. Past its share a request is refused (429, the connection closed), its body unread.
 */
export interface PeerLimits {
  /** Open connections of one address. */
  readonly connections: number;
  /** Requests of one address being read or answered. */
  readonly requests: number;
  /** Body bytes of one address held at once, when it is alone. */
  readonly bodyBytes: number;
  /** Body bytes held by every peer: each gets its share of it. */
  readonly totalBodyBytes: number;
  /** A peer's share never drops below this (a review of a few objects always fits). */
  readonly minShareBytes: number;
  /** Open connections of every peer. */
  readonly totalConnections: number;
}

export const PEER_LIMITS: PeerLimits = {
  connections: 256,
  requests: 8,
  bodyBytes: DEFAULT_BODY_LIMIT_BYTES,
  totalBodyBytes: 4 * DEFAULT_BODY_LIMIT_BYTES,
  minShareBytes: 256 * 1024,
  totalConnections: 1024,
};

/** A peer's share in use. */
interface PeerUse {
  connections: number;
  requests: number;
  bodyBytes: number;
}

/** The address a peer is counted by (an IPv4 peer of a dual-stack socket by its IPv4 form). */
export function peerOf(address: string | undefined): string {
  const text = address ?? '';
  return text.startsWith('::ffff:') && text.includes('.') ? text.slice('::ffff:'.length) : text;
}
/** The API server gives a conversion webhook 30 s at most; a request is never held longer. */
export const REQUEST_TIMEOUT_MS = 30_000;
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * Kept-alive connections from the API server stay open this long when idle: longer than its client
 * keeps an idle one (Go's 90 s), so that the API server closes them, never this server under a
 * request the API server has just started to send (that request would fail).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 120_000;

export type ReviewResult = 'success' | 'failure' | 'invalid';

export interface WebhookServerOptions {
  readonly convert: MiniClusterConverter;
  readonly bodyLimitBytes?: number;
  /** PEER_LIMITS unless given (tests shorten them). */
  readonly peerLimits?: PeerLimits;
  /** After each request: its outcome, duration and object count, and the failure (no object contents). */
  readonly onReview?: (event: {
    result: ReviewResult;
    seconds: number;
    objects: number;
    uid?: string;
    desiredAPIVersion?: string;
    failure?: ConversionFailure;
    message?: string;
  }) => void;
}

function send(response: ServerResponse, code: number, body: unknown, close = false): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (close) response.setHeader('connection', 'close');
  response.writeHead(code, {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

export class ConversionWebhookServer {
  private readonly options: WebhookServerOptions;
  private readonly bodyLimit: number;
  private server: Server | undefined;
  private served: CertificateAndKey | undefined;
  private draining = false;
  private readonly limits: PeerLimits;
  private readonly peers = new Map<string, PeerUse>();
  /** Peers with a request under way: kept as requests come and go, not counted at every chunk. */
  private activePeers = 0;

  constructor(options: WebhookServerOptions) {
    this.options = options;
    this.bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
    this.limits = options.peerLimits ?? PEER_LIMITS;
  }

  /** What each peer holds now (connections, requests, body bytes), for tests and metrics. */
  peerUse(): Record<string, Readonly<PeerUse>> {
    return Object.fromEntries([...this.peers].map(([peer, use]) => [peer, { ...use }]));
  }

  private use(peer: string): PeerUse {
    let use = this.peers.get(peer);
    if (!use) {
      use = { connections: 0, requests: 0, bodyBytes: 0 };
      this.peers.set(peer, use);
    }
    return use;
  }

  /** What `use`'s peer may hold now: its fair part of the total among the peers with requests. */
  private share(use: PeerUse): number {
    const active = this.activePeers + (use.requests > 0 ? 0 : 1);
    const fair = Math.floor(this.limits.totalBodyBytes / active);
    return Math.min(this.limits.bodyBytes, Math.max(this.limits.minShareBytes, fair));
  }

  private forgetIfIdle(peer: string, use: PeerUse): void {
    if (use.connections === 0 && use.requests === 0 && use.bodyBytes === 0) this.peers.delete(peer);
  }

  /** The port it listens on, once listening. */
  get port(): number | undefined {
    const address = this.server?.address();
    return address && typeof address === 'object' ? (address as AddressInfo).port : undefined;
  }

  get listening(): boolean {
    return this.server?.listening ?? false;
  }

  /** The certificate served now. */
  get certificate(): CertificateAndKey | undefined {
    return this.served;
  }

  /** Starts serving `pair` on `address`; rejects with the socket's error (EADDRINUSE, EACCES). */
  async listen(address: BindAddress, pair: CertificateAndKey): Promise<void> {
    if (this.server) throw new Error('the conversion webhook server is already listening');
    const server = createServer(
      {
        cert: pair.certificate,
        key: pair.key,
        minVersion: 'TLSv1.2',
        requestTimeout: REQUEST_TIMEOUT_MS,
        headersTimeout: HEADERS_TIMEOUT_MS,
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      },
      (request, response) => this.handle(request, response),
    );
    server.maxConnections = this.limits.totalConnections;
    // Counted when the TCP connection opens, before its TLS handshake: a peer past its share costs
    // no handshake.
    server.on('connection', (socket: import('node:net').Socket) => {
      const peer = peerOf(socket.remoteAddress);
      const use = this.use(peer);
      if (use.connections >= this.limits.connections) {
        this.forgetIfIdle(peer, use);
        socket.destroy();
        return;
      }
      use.connections += 1;
      socket.once('close', () => {
        use.connections -= 1;
        this.forgetIfIdle(peer, use);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(
        { port: address.port, ...(address.host === undefined ? {} : { host: address.host }) },
        () => {
          server.off('error', reject);
          resolve();
        },
      );
    });
    this.server = server;
    this.served = pair;
  }

  /** Serves `pair` to every new connection from now on (open connections keep theirs). */
  useCertificate(pair: CertificateAndKey): void {
    if (!this.server) throw new Error('the conversion webhook server is not listening');
    if (this.served?.certificate === pair.certificate && this.served.key === pair.key) return;
    this.server.setSecureContext({ cert: pair.certificate, key: pair.key, minVersion: 'TLSv1.2' });
    this.served = pair;
  }

  /**
   * Still answering, but each connection is closed after its answer (`Connection: close`): the API
   * server's next requests open new connections, which reach the pods the Service still lists. Idle
   * connections are left open until close(): closing one under a request the client has just sent
   * on it would fail that request, while the client closes one itself after its answer.
   */
  drain(): void {
    this.draining = true;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const invalid = (code: number, message: string) => {
      send(response, code, message, this.draining);
      this.options.onReview?.({ result: 'invalid', seconds: seconds(), objects: 0, message });
    };
    const path = (request.url ?? '').split('?')[0];
    if (path !== CONVERSION_WEBHOOK_PATH) {
      request.resume();
      invalid(404, `not found: the conversion webhook serves POST ${CONVERSION_WEBHOOK_PATH}`);
      return;
    }
    if (request.method !== 'POST') {
      request.resume();
      response.setHeader('allow', 'POST');
      invalid(405, `method ${request.method ?? '?'} not allowed: POST a ConversionReview`);
      return;
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > this.bodyLimit) {
      response.setHeader('connection', 'close');
      invalid(413, `the body (${declared} bytes) is over the limit of ${this.bodyLimit} bytes`);
      request.destroy();
      return;
    }
    const peer = peerOf(request.socket.remoteAddress);
    const use = this.use(peer);
    if (use.requests >= this.limits.requests || use.bodyBytes + declared > this.share(use)) {
      response.setHeader('connection', 'close');
      response.setHeader('retry-after', '1');
      invalid(429, `too many requests from ${peer} at once: try again`);
      request.destroy();
      return;
    }
    if (use.requests === 0) this.activePeers += 1;
    use.requests += 1;
    let held = 0;
    const hold = (bytes: number) => {
      held += bytes;
      use.bodyBytes += bytes;
    };
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      use.requests -= 1;
      if (use.requests === 0) this.activePeers -= 1;
      hold(-held);
      this.forgetIfIdle(peer, use);
    };
    // Once answered, or its connection gone: what it held is free again.
    response.once('close', release);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      const overShare = use.bodyBytes + chunk.length > this.share(use);
      if (size > this.bodyLimit || overShare) {
        refused = true;
        response.setHeader('connection', 'close');
        if (size > this.bodyLimit) invalid(413, `the body is over the limit of ${this.bodyLimit} bytes`);
        else {
          response.setHeader('retry-after', '1');
          invalid(429, `too many requests from ${peer} at once: try again`);
        }
        request.destroy();
        release();
        return;
      }
      hold(chunk.length);
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (refused) return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        invalid(400, 'the body is not JSON: POST a ConversionReview');
        return;
      }
      const review = parseConversionReview(body);
      if (typeof review === 'string') {
        invalid(400, `not a ConversionReview: ${review}`);
        return;
      }
      const { review: answer, failure } = answerConversionReview(review, this.options.convert);
      send(response, 200, answer, this.draining);
      this.options.onReview?.({
        result: failure ? 'failure' : 'success',
        seconds: seconds(),
        objects: review.objects.length,
        uid: review.uid,
        desiredAPIVersion: review.desiredAPIVersion,
        ...(failure ? { failure } : {}),
      });
    });
    request.on('error', () => undefined);
  }
}
