// The RESTful client behind the API server's service proxy, against a stand-in for that proxy on
// loopback: a request the proxy could not write to the pod (a connection the server had just closed
// as idle) is sent once more; any other proxy failure is reported as it came.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { RestfulApiError, RestfulClient } from '../../../src/cli/restful-client.ts';

/** What kube-apiserver's proxy answers when its write to the pod fails (seen in a CI run). */
const WRITE_RESET =
  'error trying to reach service: readfrom tcp 10.244.200.1:36710->10.244.200.100:5000: write tcp 10.244.200.1:36710->10.244.200.100:5000: write: connection reset by peer';

function status(code: number, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });
}

describe('RestfulClient through the API server proxy', () => {
  let server: Server;
  let port = 0;
  /** The answers still to give, in order; every request the proxy saw, with its body. */
  let answers: { code: number; body: string }[] = [];
  const seen: { method: string; url: string; body: string }[] = [];

  before(async () => {
    server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({
          method: request.method ?? '',
          url: request.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const answer = answers.shift() ?? { code: 500, body: status(500, 'no answer left') };
        response.writeHead(answer.code, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address && typeof address === 'object');
    port = address.port;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function client(): RestfulClient {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
      currentContext: 'c',
    });
    return new RestfulClient(
      { kind: 'proxy', config, namespace: 'team', service: 'api-restful' },
      { user: 'flux', token: 't' },
    );
  }

  it('sends a submit once more when the proxy could not write it to the pod', async () => {
    seen.length = 0;
    answers = [
      { code: 503, body: status(503, WRITE_RESET) },
      { code: 200, body: JSON.stringify({ id: 7 }) },
    ];
    const answer = await client().call('POST', '/v1/jobs/submit', { command: 'hostname' });
    assert.deepEqual(answer, { id: 7 });
    assert.deepEqual(
      seen.map((request) => `${request.method} ${request.url} ${request.body}`),
      Array(2).fill(
        'POST /api/v1/namespaces/team/services/api-restful:http/proxy/v1/jobs/submit {"command":"hostname"}',
      ),
    );
  });

  it('sends it only once more: a second reset is reported, as not ready', async () => {
    seen.length = 0;
    answers = [
      { code: 503, body: status(503, WRITE_RESET) },
      { code: 503, body: status(503, WRITE_RESET) },
    ];
    await assert.rejects(client().call('POST', '/v1/jobs/submit', { command: 'hostname' }), (error) => {
      assert.ok(error instanceof RestfulApiError);
      assert.match(error.message, /not ready yet .*connection reset by peer/);
      return true;
    });
    assert.equal(seen.length, 2);
  });

  it('does not send again after any other proxy failure (the pod refused the connection)', async () => {
    seen.length = 0;
    answers = [
      {
        code: 503,
        body: status(
          503,
          'error trying to reach service: dial tcp 10.244.200.100:5000: connect: connection refused',
        ),
      },
    ];
    await assert.rejects(client().call('POST', '/v1/jobs/submit', { command: 'hostname' }), RestfulApiError);
    assert.equal(seen.length, 1);
  });
});
