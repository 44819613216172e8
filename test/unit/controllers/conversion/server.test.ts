import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificateAndKey,
} from '../../../../src/controllers/conversion/certificates.ts';
import { ConversionWebhookServer, type ReviewResult } from '../../../../src/controllers/conversion/server.ts';
import { eventually } from '../../eventually.ts';

const HOSTS = { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] };
const validity = () => ({
  notBefore: new Date(Date.now() - 60_000),
  notAfter: new Date(Date.now() + 3600_000),
});

interface Answer {
  status: number;
  body: string;
  /** The Connection header of the answer. */
  connection: string | undefined;
  /** The fingerprint of the certificate the server presented. */
  fingerprint: string;
}

function post(
  port: number,
  ca: string | string[],
  path: string,
  body: string | Buffer,
  method = 'POST',
  agent: Agent | false = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        ca,
        agent,
        timeout: 5_000,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const fingerprint = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text,
            fingerprint,
            connection: res.headers.connection,
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

function review(objects: unknown[]) {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: 'u-1', desiredAPIVersion: 'flux-framework.org/v1alpha2', objects },
  });
}

describe('ConversionWebhookServer', () => {
  let ca: CertificateAndKey;
  let pair: CertificateAndKey;
  /** Every CA the server's certificates were issued by so far. */
  const trusted: string[] = [];
  const events: { result: ReviewResult; objects: number; message?: string }[] = [];
  const server = new ConversionWebhookServer({
    convert: (obj, desired) => {
      if ((obj as { spec?: { bad?: boolean } }).spec?.bad) throw new Error('spec.bad: refused');
      return { ...(obj as object), apiVersion: desired };
    },
    bodyLimitBytes: 4096,
    onReview: (event) =>
      events.push({
        result: event.result,
        objects: event.objects,
        ...(event.message ? { message: event.message } : {}),
      }),
  });

  before(async () => {
    ca = await createCertificateAuthority('ca-1', validity());
    pair = await issueServingCertificate(ca, HOSTS, validity());
    trusted.push(ca.certificate);
    await server.listen({ host: '127.0.0.1', port: 0 }, pair);
  });
  after(() => server.close());

  it('answers a ConversionReview over TLS with the objects converted and the uid echoed', async () => {
    const objects = [
      {
        apiVersion: 'flux-framework.org/v1alpha1',
        kind: 'MiniCluster',
        metadata: { name: 'a', namespace: 'n' },
        spec: { size: 2 },
      },
    ];
    const answer = await post(server.port ?? 0, ca.certificate, '/convert', review(objects));
    assert.equal(answer.status, 200);
    const parsed = JSON.parse(answer.body) as {
      response: { uid: string; convertedObjects: unknown[]; result: unknown };
    };
    assert.equal(parsed.response.uid, 'u-1');
    assert.deepEqual(parsed.response.result, { status: 'Success' });
    assert.deepEqual(parsed.response.convertedObjects, [
      { ...objects[0], apiVersion: 'flux-framework.org/v1alpha2' },
    ]);
    assert.deepEqual(events.at(-1), { result: 'success', objects: 1 });
  });

  it('answers a failed conversion with Failure and its message, and reports it', async () => {
    const answer = await post(
      server.port ?? 0,
      ca.certificate,
      '/convert',
      review([{ metadata: { name: 'b', namespace: 'n' }, spec: { bad: true } }]),
    );
    assert.equal(answer.status, 200);
    assert.deepEqual((JSON.parse(answer.body) as { response: { result: unknown } }).response.result, {
      status: 'Failure',
      message: 'converting MiniCluster n/b to flux-framework.org/v1alpha2: spec.bad: refused',
    });
    assert.deepEqual(events.at(-1), { result: 'failure', objects: 1 });
  });

  it('refuses other paths, other methods, bodies that are not reviews and bodies over the limit', async () => {
    const port = server.port ?? 0;
    const notFound = await post(port, ca.certificate, '/mutate', review([]));
    assert.equal(notFound.status, 404);
    assert.match(notFound.body, /serves POST \/convert/);
    assert.equal((await post(port, ca.certificate, '/convert', '', 'GET')).status, 405);
    const notJson = await post(port, ca.certificate, '/convert', '{');
    assert.deepEqual([notJson.status, notJson.body], [400, 'the body is not JSON: POST a ConversionReview']);
    const notReview = await post(port, ca.certificate, '/convert', '{"kind":"Pod"}');
    assert.equal(notReview.status, 400);
    assert.match(
      notReview.body,
      /^not a ConversionReview: expected a apiextensions.k8s.io\/v1 ConversionReview/,
    );
    const big = await post(port, ca.certificate, '/convert', Buffer.alloc(5000, 'x'));
    assert.equal(big.status, 413);
    assert.match(big.body, /over the limit of 4096 bytes/);
    assert.equal(events.at(-1)?.result, 'invalid');
  });

  it('serves a renewed certificate to new connections without a restart', async () => {
    const port = server.port ?? 0;
    const before = await post(port, ca.certificate, '/convert', review([]));
    const ca2 = await createCertificateAuthority('ca-2', validity());
    const renewed = await issueServingCertificate(ca2, HOSTS, validity());
    server.useCertificate(renewed);
    trusted.push(ca2.certificate);
    assert.equal(server.port, port, 'same port: not restarted');
    const afterRenewal = await post(port, [ca.certificate, ca2.certificate], '/convert', review([]));
    assert.equal(afterRenewal.status, 200);
    assert.notEqual(afterRenewal.fingerprint, before.fingerprint);
    await assert.rejects(
      post(port, ca.certificate, '/convert', review([])),
      /certificate/i,
      'the old CA alone no longer verifies it',
    );
  });

  it('draining, still answers, closing each connection after its answer', async () => {
    const port = server.port ?? 0;
    // As the API server's client: connections kept for the next request.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await post(port, trusted, '/convert', review([]), 'POST', agent);
    assert.equal(before.connection, 'keep-alive');
    server.drain();
    const during = await post(port, trusted, '/convert', review([]), 'POST', agent);
    agent.destroy();
    assert.equal(during.status, 200);
    assert.equal(during.connection, 'close');
    assert.equal((JSON.parse(during.body) as { response: { uid: string } }).response.uid, 'u-1');
  });
});

describe('ConversionWebhookServer against a flooding peer', () => {
  let ca: CertificateAndKey;
  const limits = {
    connections: 4,
    requests: 2,
    bodyBytes: 3000,
    totalBodyBytes: 5000,
    minShareBytes: 1000,
    totalConnections: 64,
  };
  const server = new ConversionWebhookServer({
    convert: (obj, desired) => ({ ...(obj as object), apiVersion: desired }),
    bodyLimitBytes: 3000,
    peerLimits: limits,
  });
  const open: TLSSocket[] = [];

  before(async () => {
    ca = await createCertificateAuthority('ca-flood', validity());
    await server.listen({ host: '127.0.0.1', port: 0 }, await issueServingCertificate(ca, HOSTS, validity()));
  });
  after(async () => {
    for (const socket of open) socket.destroy();
    await server.close();
  });

  /** A TLS connection from `from` (another loopback address is another peer). */
  function connect(from: string): Promise<TLSSocket> {
    return new Promise((resolve, reject) => {
      const socket = tlsConnect(
        {
          socket: netConnect({ host: '127.0.0.1', port: server.port ?? 0, localAddress: from }),
          ca: ca.certificate,
          servername: 'localhost',
        },
        () => resolve(socket),
      );
      socket.once('error', reject);
      socket.setTimeout(30_000, () => socket.destroy(new Error('timed out')));
      open.push(socket);
    });
  }

  /** Sends the head of a POST of `declared` bytes and `sent` of them, and leaves it hanging. */
  async function slowPost(from: string, declared: number, sent: number): Promise<TLSSocket> {
    const socket = await connect(from);
    socket.write(
      `POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n` +
        'x'.repeat(sent),
    );
    return socket;
  }

  /** The status line the server answers on the socket with, or `closed` when it closes it unanswered. */
  function statusOn(socket: TLSSocket): Promise<string> {
    return new Promise((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        const line = text.split('\r\n')[0];
        if (text.includes('\r\n')) resolve(line ?? '');
      });
      socket.once('close', () => resolve(text === '' ? 'closed' : (text.split('\r\n')[0] ?? '')));
    });
  }

  it('refuses a peer past its share of requests, body bytes and connections, and still answers another', async () => {
    const flooder = '127.0.0.2';
    // Its two requests in flight, 2000 of 3000 bytes held: a third is refused before its body is read.
    await slowPost(flooder, 1400, 1000);
    await slowPost(flooder, 1400, 1000);
    await eventually(
      () => server.peerUse()[flooder]?.bodyBytes === 2000,
      () => `the two bodies held: ${JSON.stringify(server.peerUse())}`,
    );
    const third = await slowPost(flooder, 10, 0);
    assert.match(await statusOn(third), /^HTTP\/1\.1 429 /);
    // Past its connections (4): closed before a TLS handshake.
    await eventually(() => server.peerUse()[flooder]?.connections === 2, 'the refused connection closed');
    await connect(flooder);
    await connect(flooder);
    await assert.rejects(connect(flooder), /socket hang up|ECONNRESET|disconnected/);
    // Another peer (the API server) is answered as ever.
    const answer = await post(
      server.port ?? 0,
      ca.certificate,
      '/convert',
      review([{ kind: 'MiniCluster' }]),
    );
    assert.equal(answer.status, 200);
    await eventually(
      () => server.peerUse()['127.0.0.1'] === undefined,
      () => `nothing of the other peer held after its answer: ${JSON.stringify(server.peerUse())}`,
    );
  });

  /** Closes every connection the tests opened, and waits until the server forgot their peers. */
  async function closeAll(): Promise<void> {
    for (const socket of open.splice(0)) socket.destroy();
    await eventually(
      () => Object.keys(server.peerUse()).length === 0,
      () => `every peer forgotten: ${JSON.stringify(server.peerUse())}`,
    );
  }

  it('refuses a chunked body that outgrows the peer`s share, and frees what it held', async () => {
    await closeAll();
    const flooder = '127.0.0.3';
    const first = await slowPost(flooder, 2999, 2900);
    const socket = await connect(flooder);
    socket.write('POST /convert HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    socket.write(`${(500).toString(16)}\r\n${'x'.repeat(500)}\r\n`);
    assert.match(await statusOn(socket), /^HTTP\/1\.1 429 /);
    first.destroy();
    await eventually(
      () => server.peerUse()[flooder] === undefined,
      'the peer forgotten once its connections closed',
    );
  });

  it('shares the bodies fairly: a peer holding the whole share is cut off once another sends', async () => {
    await closeAll();
    // Alone, 127.0.0.4 may hold 3000 bytes (the body limit): it holds 2400 of 3000.
    const first = await slowPost('127.0.0.4', 3000, 2400);
    await eventually(() => server.peerUse()['127.0.0.4']?.bodyBytes === 2400, 'the first body held');
    // 127.0.0.5 starts one: each of the two may now hold 5000 / 2 = 2500.
    await slowPost('127.0.0.5', 2000, 1500);
    await eventually(() => server.peerUse()['127.0.0.5']?.bodyBytes === 1500, 'the second body held');
    const cut = statusOn(first);
    first.write('x'.repeat(200));
    assert.match(await cut, /^HTTP\/1\.1 429 /);
    await eventually(() => server.peerUse()['127.0.0.4'] === undefined, 'the first peer forgotten');
  });
});
