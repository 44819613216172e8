import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { miniClusterCrd } from '../../../src/api/index.ts';
import { describeApiError, isConflict } from '../../../src/kube/api-errors.ts';
import { serverSideApply } from '../../../src/kube/apply.ts';
import { apiClients, type ObjectApplier } from '../../../src/kube/api-clients.ts';
import { KubeApiError } from '../../../src/kube/transport.ts';
import { renderMiniCluster, type KubeObject } from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted } from '../render/fixtures.ts';

/** JSON round trip: the value as it would be compared on the wire (no undefined, no prototypes). */
function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** Discovery answers for the kinds applied here: group/version -> [plural, kind, namespaced]. */
const RESOURCES: Record<string, [string, string, boolean][]> = {
  '/api/v1': [
    ['configmaps', 'ConfigMap', true],
    ['secrets', 'Secret', true],
    ['services', 'Service', true],
  ],
  '/apis/batch/v1': [['jobs', 'Job', true]],
  '/apis/apiextensions.k8s.io/v1': [['customresourcedefinitions', 'CustomResourceDefinition', false]],
};

interface Received {
  method: string;
  url: URL;
  contentType: string | undefined;
  body: unknown;
}

describe('server-side apply', () => {
  let server: Server;
  let api: ObjectApplier;
  let close: () => void;
  const received: Received[] = [];
  let answer: ((request: Received) => { code: number; body: string }) | undefined;

  before(async () => {
    server = createServer((request: IncomingMessage, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://localhost');
        const discovery = RESOURCES[url.pathname];
        response.setHeader('content-type', 'application/json');
        if (discovery) {
          response.end(
            JSON.stringify({
              kind: 'APIResourceList',
              resources: discovery.map(([name, kind, namespaced]) => ({ name, kind, namespaced, verbs: [] })),
            }),
          );
          return;
        }
        const got: Received = {
          method: request.method ?? '',
          url,
          contentType: request.headers['content-type'],
          body: JSON.parse(text),
        };
        received.push(got);
        const { code, body } = answer?.(got) ?? { code: 200, body: text };
        response.statusCode = code;
        response.end(body);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const clients = apiClients({
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      tls: { rejectUnauthorized: true },
      authorization: async () => 'Bearer t',
      clientConfig: () => Promise.reject(new Error('not needed')),
      namespace: 'ns',
    });
    api = clients.objects;
    close = () => clients.transport.close();
  });

  after(() => {
    close();
    server.closeAllConnections();
    server.close();
  });

  it('sends the CRD as its JSON, x-kubernetes-validations included, to its resource path', async () => {
    received.length = 0;
    const crd = miniClusterCrd();
    const returned = await serverSideApply(api, crd as never, 'manager');
    const [request] = received;
    assert.ok(request);
    assert.equal(request.method, 'PATCH');
    assert.equal(
      request.url.pathname,
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
    );
    assert.equal(request.contentType, 'application/apply-patch+yaml');
    assert.equal(request.url.searchParams.get('fieldManager'), 'manager');
    assert.equal(request.url.searchParams.get('force'), 'true');
    assert.equal(request.url.searchParams.get('dryRun'), null);
    assert.deepEqual(request.body, json(crd));
    assert.deepEqual(returned, json(crd), 'the response as plain JSON');
  });

  it('sends every rendered object with every field, dry runs marked', async () => {
    const miniCluster = defaulted({
      size: 2,
      maxSize: 4,
      pod: { resources: { cpu: 2 }, tolerations: [{ key: 'a', operator: 'Exists' }] },
      containers: [
        {
          image: IMAGE,
          command: 'hostname',
          cores: 2,
          securityContext: { privileged: true, addCapabilities: ['SYS_ADMIN'] },
          lifeCycle: { postStartExec: 'true' },
          volumes: { data: { path: '/data', emptyDir: true, emptyDirMedium: 'Memory' } },
        },
      ],
    });
    for (const object of renderMiniCluster(miniCluster, KEYS) as KubeObject[]) {
      received.length = 0;
      await serverSideApply(api, object, 'manager', { dryRun: true });
      const [request] = received;
      assert.ok(request, object.kind);
      assert.deepEqual(request.body, json(object), `${object.kind} loses fields when sent`);
      assert.equal(request.url.searchParams.get('dryRun'), 'All');
      assert.match(
        request.url.pathname,
        new RegExp(`/namespaces/${object.metadata.namespace}/\\w+/${object.metadata.name}$`),
      );
    }
  });

  it("raises the transport's KubeApiError with the server's Status", async () => {
    answer = () => ({
      code: 409,
      body: JSON.stringify({
        kind: 'Status',
        status: 'Failure',
        reason: 'Conflict',
        message: 'conflict on x',
        code: 409,
      }),
    });
    try {
      const error: unknown = await serverSideApply(api, miniClusterCrd() as never, 'manager').catch(
        (e: unknown) => e,
      );
      assert.ok(error instanceof KubeApiError);
      assert.ok(isConflict(error));
      assert.equal(describeApiError(error), 'conflict on x (HTTP 409)');
    } finally {
      answer = undefined;
    }
  });
});
