import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ResilientInformer } from '../../../src/runtime/informers.ts';
import { eventually } from '../eventually.ts';
import { loopbackApi } from '../kube/loopback-api.ts';

describe('ResilientInformer.restartWatches (after an outage)', () => {
  it('starts a silent watch again from where it was, and the next watch delivers what the silent one did not', async (t) => {
    const watches: { resourceVersion: string | null; response: ServerResponse }[] = [];
    const api = await loopbackApi((request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (url.searchParams.get('watch') !== 'true') {
        response.end('{}');
        return;
      }
      response.flushHeaders();
      watches.push({ resourceVersion: url.searchParams.get('resourceVersion'), response });
      // The first watch never says a word (a connection made while the server came back); later
      // ones deliver the Job made meanwhile.
      if (watches.length > 1) {
        const job = { metadata: { name: 'made', namespace: 'a', resourceVersion: '8' } };
        response.write(`${JSON.stringify({ type: 'ADDED', object: job })}\n`);
      }
    });
    t.after(() => api.close());
    const added: string[] = [];
    const informer = new ResilientInformer<KubernetesObject>({
      transport: api.transport,
      kind: {
        name: 'Job',
        path: (namespace) => `/apis/batch/v1/namespaces/${namespace ?? ''}/jobs`,
        list: () =>
          Promise.resolve({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '7' }, items: [] }),
      },
      namespaces: ['a'],
      handlers: {
        onAdd: (object) => added.push(object.metadata?.name ?? ''),
        onUpdate: () => undefined,
        onDelete: () => undefined,
      },
      onError: () => undefined,
    });
    t.after(() => informer.stop());
    await informer.start();
    await eventually(() => watches.length === 1, 'the first watch');
    assert.deepEqual(added, []);

    await informer.restartWatches();
    await eventually(
      () => added.length === 1,
      () => `the Job from the restarted watch (${added.join()})`,
    );
    assert.deepEqual(added, ['made']);
    assert.deepEqual(
      watches.map((watch) => watch.resourceVersion),
      ['7', '7'],
      'the restarted watch resumes from the list, not a relist',
    );
    assert.equal(informer.get('made', 'a')?.metadata?.resourceVersion, '8');
  });
});
