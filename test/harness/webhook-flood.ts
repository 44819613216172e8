// Strangers flooding the operator's conversion webhook, from loopback addresses of their own
// (127.0.0.0/8 is all loopback: each address stands for another pod of the pod network). Big senders
// post 60 MiB bodies in chunks, again a second after each is cut off or answered; small ones keep a
// connection each and post a small review on it every second. Nothing leaves this machine. Every
// socket has a timeout.
import { connect as netConnect } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';

export interface Flood {
  /** Requests the server answered, and connections it refused or cut. */
  readonly answered: number;
  readonly cut: number;
  stop(): Promise<void>;
}

const MIB = 1024 * 1024;
const SOCKET_TIMEOUT_MS = 30_000;

function review(): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: 'flood', desiredAPIVersion: 'flux-framework.org/v1alpha2', objects: [] },
  });
}

/**
 * Starts `big` senders of `bigBytes` bodies (addresses 127.0.1.1...) and `small` senders of small
 * reviews (127.0.2.x, 127.0.3.x..., four to an address) against the webhook at 127.0.0.1:`port`.
 */
export function floodWebhook(port: number, big: number, small: number, bigBytes = 60 * MIB): Flood {
  let stopped = false;
  let answered = 0;
  let cut = 0;
  const sockets = new Set<TLSSocket>();
  const open = (from: string) =>
    new Promise<TLSSocket>((resolve, reject) => {
      // A stranger does not check whom it floods.
      const socket = connect(
        { socket: netConnect({ host: '127.0.0.1', port, localAddress: from }), rejectUnauthorized: false },
        () => resolve(socket),
      );
      sockets.add(socket);
      socket.setTimeout(SOCKET_TIMEOUT_MS, () => socket.destroy());
      socket.once('error', reject);
      socket.once('close', () => {
        sockets.delete(socket);
        // Closed before its handshake ended (stop(), or the server past the peer's connections).
        reject(new Error('closed'));
      });
    });
  /** One exchange: resolves when the server answers or closes the connection. */
  const exchange = (socket: TLSSocket, send: (socket: TLSSocket) => void) =>
    new Promise<void>((resolve) => {
      socket.once('data', (chunk: Buffer) => {
        if (/^HTTP\/1\.1 200 /.test(chunk.toString('latin1'))) answered += 1;
        else cut += 1;
        resolve();
      });
      socket.once('close', () => {
        cut += 1;
        resolve();
      });
      send(socket);
    });
  const bigBody = (socket: TLSSocket) => {
    socket.write('POST /convert HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    const piece = Buffer.alloc(MIB, 'x');
    let sent = 0;
    const more = () => {
      while (!socket.destroyed && sent < bigBytes) {
        sent += piece.length;
        const header = `${piece.length.toString(16)}\r\n`;
        if (!socket.write(Buffer.concat([Buffer.from(header), piece, Buffer.from('\r\n')]))) {
          socket.once('drain', more);
          return;
        }
      }
      if (!socket.destroyed) socket.write('0\r\n\r\n');
    };
    more();
  };
  const smallRequest = () => {
    const body = review();
    return `POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** A big sender: one body of bigBytes at a time, again a second after the server cut or answered it. */
  const bigSender = async (from: string) => {
    while (!stopped) {
      try {
        const socket = await open(from);
        await exchange(socket, bigBody);
        socket.destroy();
      } catch {
        cut += 1;
      }
      await pause(1_000);
    }
  };
  /** A small sender: one kept-alive connection, a small review every second; reconnects when closed. */
  const smallSender = async (from: string) => {
    // They arrive over the first two seconds, as a thousand clients would, not in one instant.
    await pause(Math.random() * 2_000);
    while (!stopped) {
      try {
        const socket = await open(from);
        socket.on('data', (chunk: Buffer) => {
          const text = chunk.toString('latin1');
          answered += text.split('HTTP/1.1 200 ').length - 1;
          cut += text.split(/HTTP\/1\.1 [45]\d\d /).length - 1;
        });
        while (!stopped && !socket.destroyed) {
          socket.write(smallRequest());
          await pause(1_000);
        }
      } catch {
        cut += 1;
      }
      await pause(1_000);
    }
  };
  const senders = [
    ...Array.from({ length: big }, (_, i) => bigSender(`127.0.1.${i + 1}`)),
    ...Array.from({ length: small }, (_, i) =>
      smallSender(`127.0.${2 + Math.floor(i / 1000)}.${1 + (Math.floor(i / 4) % 250)}`),
    ),
  ];
  return {
    get answered() {
      return answered;
    },
    get cut() {
      return cut;
    },
    async stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
      await Promise.all(senders);
    },
  };
}
