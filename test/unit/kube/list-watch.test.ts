import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ListWatch } from '../../../src/kube/list-watch.ts';
import { eventually } from '../eventually.ts';
import { loopbackApi } from './loopback-api.ts';

describe('ListWatch', () => {
  it('keeps one watch however many starts race, and stop() closes it', async () => {
    const open = new Set<ServerResponse>();
    const api = await loopbackApi((request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (!request.url?.includes('watch=true')) {
        response.end(JSON.stringify({ metadata: { resourceVersion: '7' }, items: [] }));
        return;
      }
      // A watch: headers now, events never; the stream stays open until the client closes it.
      response.flushHeaders();
      open.add(response);
      response.on('close', () => open.delete(response));
    });
    const cache = new ListWatch<KubernetesObject>({
      transport: api.transport,
      path: '/api/v1/pods',
      handlers: {
        onAdd: () => undefined,
        onUpdate: () => undefined,
        onDelete: () => undefined,
        onError: () => undefined,
      },
    });
    try {
      await Promise.all([cache.start(), cache.start(), cache.start()]);
      await eventually(() => open.size > 0, 'a watch to open');
      await sleep(100); // a second watch of the racing starts would have come
      assert.equal(open.size, 1, 'one watch open');
      cache.stop();
      await eventually(
        () => open.size === 0,
        () => `no watch left after stop() (${open.size} open)`,
      );
    } finally {
      cache.stop();
      api.close();
    }
  });
});
