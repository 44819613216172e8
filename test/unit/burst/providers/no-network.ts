/**
 * Detects network use through Node's diagnostics channels (a supported observation API, nothing is
 * patched): `net.connect`/`createConnection` publish `net.client.socket`, the http/https clients
 * `http.client.request.start`, and the global fetch (undici) `undici:request:create` and
 * `undici:client:beforeConnect`. The tests check that these fire on a real request (to a closed
 * loopback port) before trusting their silence.
 */
import dc from 'node:diagnostics_channel';
import net from 'node:net';

const CHANNELS = [
  'net.client.socket',
  'http.client.request.start',
  'undici:request:create',
  'undici:client:beforeConnect',
] as const;

export interface NetworkWatch {
  readonly events: readonly string[];
  stop(): void;
}

export function watchNetwork(): NetworkWatch {
  const events: string[] = [];
  const subscriptions = CHANNELS.map((channel) => {
    const listener = (): void => {
      events.push(channel);
    };
    dc.subscribe(channel, listener);
    return [channel, listener] as const;
  });
  return {
    events,
    stop() {
      for (const [channel, listener] of subscriptions) dc.unsubscribe(channel, listener);
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
