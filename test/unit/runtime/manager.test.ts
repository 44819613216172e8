import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject, V1Lease } from '@kubernetes/client-node';
import type { Transport } from '../../../src/kube/transport.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import type { WatchedKind } from '../../../src/runtime/informers.ts';
import type { LeaseApi } from '../../../src/runtime/leader-election.ts';
import { Manager, type ManagerOptions } from '../../../src/runtime/manager.ts';
import { objectKey, type ObjectKey } from '../../../src/runtime/object-key.ts';
import { PeriodicRunnable } from '../../../src/runtime/periodic.ts';
import { eventually } from '../eventually.ts';
import { loopbackApi } from '../kube/loopback-api.ts';

type WatchEventLine = { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KubernetesObject };

/**
 * A local API server for the caches' watches: each watch of a path gets that path's events after
 * 50 ms (once the manager leads), then stays open. Lists come from the kinds' own `list`.
 */
async function apiServer(t: TestContext, events: Record<string, WatchEventLine[]> = {}): Promise<Transport> {
  const open = new Set<ServerResponse>();
  const api = await loopbackApi((request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.searchParams.get('watch') !== 'true') {
      response.end('{}');
      return;
    }
    response.flushHeaders();
    open.add(response);
    response.on('close', () => open.delete(response));
    const lines = events[url.pathname] ?? [];
    setTimeout(() => {
      for (const line of lines) response.write(`${JSON.stringify(line)}\n`);
    }, 50).unref();
  });
  t.after(() => api.close());
  return api.transport;
}

function object(name: string, generation: number, labels: Record<string, string> = {}): KubernetesObject {
  return { metadata: { name, namespace: 'a', generation, resourceVersion: String(generation), labels } };
}

/** A namespaced kind served by the test: its list is `items`, its watch `/<plural>` under namespace a. */
function kind(name: string, items: KubernetesObject[]): WatchedKind<KubernetesObject> {
  const plural = `${name.toLowerCase()}s`;
  return {
    name,
    path: (namespace) => (namespace ? `/api/v1/namespaces/${namespace}/${plural}` : `/api/v1/${plural}`),
    list: () =>
      Promise.resolve({
        apiVersion: 'v1',
        kind: 'List',
        metadata: { resourceVersion: '1' },
        items: structuredClone(items),
      }),
  };
}

/** Leases kept in memory with the API server's optimistic concurrency (409 on a stale resourceVersion). */
function memoryLeases(): LeaseApi & { leases: Map<string, V1Lease> } {
  const leases = new Map<string, V1Lease>();
  let version = 0;
  const status = (code: number) => Object.assign(new Error(`HTTP ${code}`), { statusCode: code });
  const stored = (lease: V1Lease) => {
    const copy = structuredClone(lease);
    copy.metadata = { ...copy.metadata, resourceVersion: String((version += 1)) };
    return copy;
  };
  return {
    leases,
    readNamespacedLease: ({ name, namespace }) => {
      const lease = leases.get(`${namespace}/${name}`);
      return lease ? Promise.resolve(structuredClone(lease)) : Promise.reject(status(404));
    },
    createNamespacedLease: ({ namespace, body }) => {
      const key = `${namespace}/${body.metadata?.name ?? ''}`;
      if (leases.has(key)) return Promise.reject(status(409));
      leases.set(key, stored(body));
      return Promise.resolve(structuredClone(leases.get(key) as V1Lease));
    },
    replaceNamespacedLease: ({ name, namespace, body }) => {
      const key = `${namespace}/${name}`;
      if (leases.get(key)?.metadata?.resourceVersion !== body.metadata?.resourceVersion) {
        return Promise.reject(status(409));
      }
      leases.set(key, stored(body));
      return Promise.resolve(structuredClone(leases.get(key) as V1Lease));
    },
  };
}

/** One candidate's view of the Leases, counting its election rounds (each reads the Lease once). */
function candidate(leases: LeaseApi): { coordination: LeaseApi; rounds: () => number } {
  let rounds = 0;
  const coordination: LeaseApi = {
    ...leases,
    readNamespacedLease: (request) => {
      rounds += 1;
      return leases.readNamespacedLease(request);
    },
  };
  return { coordination, rounds: () => rounds };
}

function logSink() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { log, lines };
}

/** A manager with one controller `for` Widgets that `owns` Parts, recording its passes and its runnables' lives. */
function widgetManager(
  options: Pick<ManagerOptions, 'clients' | 'leaderElection' | 'onLeadershipChange'>,
  reconcile: (key: ObjectKey) => Promise<{ requeueAfterMs?: number }> = () => Promise.resolve({}),
) {
  const { log, lines } = logSink();
  const manager = new Manager({ ...options, log, namespaces: ['a'] });
  const passes: ObjectKey[] = [];
  const lifecycle: string[] = [];
  let ticks = 0;
  manager.add(
    {
      start: () => void lifecycle.push(`startup (synced: ${manager.synced})`),
      stop: () => void lifecycle.push('startup stopped'),
    },
    { leaderOnly: false },
  );
  const periodic = new PeriodicRunnable({
    intervalMs: 10,
    onInterval: () => (ticks += 1),
    onError: () => undefined,
  });
  manager.add({
    start: () => {
      lifecycle.push(`leader runnable (leading: ${manager.isLeader})`);
      periodic.start();
    },
    stop: () => {
      lifecycle.push('leader runnable stopped');
      periodic.stop();
    },
  });
  const controller = manager.controller({
    name: 'widget',
    concurrency: 1,
    reconcile: async (key) => {
      passes.push(key);
      return reconcile(key);
    },
    ownerOf: (part) => {
      const owner = part.metadata?.labels?.owner;
      return owner ? objectKey(part.metadata?.namespace ?? '', owner) : undefined;
    },
    eventDelayMs: 10,
  });
  controller.for(kind('Widget', [object('w1', 1), object('w2', 1)]));
  controller.owns(kind('Part', [object('p1', 1, { owner: 'w1' })]));
  return { manager, controller, passes, lifecycle, lines, ticks: () => ticks };
}

describe('Manager', () => {
  it('starts its startup runnables, then the caches, then leads: every object gets a pass, then their events route by kind', async (t) => {
    const transport = await apiServer(t, {
      '/api/v1/namespaces/a/widgets': [
        {
          type: 'MODIFIED',
          object: { ...object('w2', 1), metadata: { ...object('w2', 1).metadata, resourceVersion: '5' } },
        },
        { type: 'MODIFIED', object: object('w2', 2) },
      ],
      '/api/v1/namespaces/a/parts': [{ type: 'MODIFIED', object: object('p1', 3, { owner: 'w1' }) }],
    });
    const { manager, passes, lifecycle, lines } = widgetManager({
      clients: { transport, coordination: memoryLeases() },
    });
    await manager.start();
    t.after(() => manager.stop());
    assert.equal(manager.synced, true);
    assert.equal(manager.isLeader, true, 'without leader election it leads at once');
    await eventually(() => passes.length >= 4, 'the passes of the watch events');
    await sleep(50);
    await manager.idle();
    // The list's objects once each on taking the lead; w2 again for its spec change (generation 2)
    // but not for the status-only update before it; w1 for its Part's change.
    assert.deepEqual(passes.slice(0, 2), ['a/w1', 'a/w2']);
    assert.deepEqual(passes.slice(2).sort(), ['a/w1', 'a/w2']);
    assert.equal(passes.length, 4);
    assert.ok(lines.some((line) => line.msg === 'leading: reconciling Widgets'));
    await manager.stop();
    assert.equal(manager.isLeader, false);
    assert.deepEqual(lifecycle, [
      'startup (synced: false)',
      'leader runnable (leading: true)',
      'leader runnable stopped',
      'startup stopped',
    ]);
  });

  it('with leader election, runs controllers and leader-only runnables on the leader only; the standby takes over when it stops', async (t) => {
    const transport = await apiServer(t);
    const leases = memoryLeases();
    const election = { namespace: 'ops', leaseName: 'widgets', retryPeriodMs: 20, leaseDurationSeconds: 5 };
    const changes: string[] = [];
    const first = widgetManager({
      clients: { transport, coordination: leases },
      leaderElection: { ...election, identity: 'first' },
      onLeadershipChange: (leading) => changes.push(`first ${leading}`),
    });
    const standby = candidate(leases);
    const second = widgetManager({
      clients: { transport, coordination: standby.coordination },
      leaderElection: { ...election, identity: 'second' },
      onLeadershipChange: (leading) => changes.push(`second ${leading}`),
    });
    await first.manager.start();
    t.after(() => first.manager.stop());
    await eventually(() => first.manager.isLeader, 'the first to lead');
    await eventually(() => first.passes.length >= 2, 'the leader to reconcile');
    await eventually(() => first.ticks() > 0, "the leader's periodic runnable to run");
    await second.manager.start();
    t.after(() => second.manager.stop());
    await eventually(() => standby.rounds() >= 2, 'two election rounds of the standby');
    await sleep(100);
    assert.equal(second.manager.isLeader, false);
    assert.equal(second.ticks(), 0, "the standby's periodic runnable never ran");
    assert.deepEqual(second.passes, [], 'the standby reconciles nothing');
    assert.deepEqual(first.passes, ['a/w1', 'a/w2']);

    await first.manager.stop();
    assert.equal(leases.leases.get('ops/widgets')?.spec?.holderIdentity, undefined, 'the Lease is released');
    const ticksAtStop = first.ticks();
    await eventually(() => second.manager.isLeader, 'the standby to take over');
    await eventually(() => second.passes.length === 2, 'the new leader to reconcile');
    await eventually(() => second.ticks() > 0, "the new leader's periodic runnable to run");
    await sleep(50);
    assert.equal(first.ticks(), ticksAtStop, 'the stopped leader runs nothing more');
    assert.deepEqual(changes, ['first true', 'second true']);
  });

  it('on losing the Lease stops its queues and leader-only runnables, and does not lead again', async (t) => {
    const transport = await apiServer(t);
    const leases = memoryLeases();
    const changes: boolean[] = [];
    const elector = candidate(leases);
    const { manager, lifecycle, lines, ticks } = widgetManager({
      clients: { transport, coordination: elector.coordination },
      leaderElection: { namespace: 'ops', leaseName: 'widgets', identity: 'first', retryPeriodMs: 20 },
      onLeadershipChange: (leading) => changes.push(leading),
    });
    await manager.start();
    t.after(() => manager.stop());
    await eventually(() => manager.isLeader, 'the lead');
    // Another instance takes the Lease (ours expired while we were partitioned away, say).
    const lease = leases.leases.get('ops/widgets') as V1Lease;
    lease.spec = { ...lease.spec, holderIdentity: 'other', renewTime: new Date(Date.now() + 60_000) };
    await eventually(() => !manager.isLeader, 'the lead to be lost');
    await eventually(() => lifecycle.includes('leader runnable stopped'), 'the leader runnable to stop');
    const ticksAfterLoss = ticks();
    assert.deepEqual(changes, [true, false]);
    assert.ok(lines.some((line) => line.msg === 'lost leadership: stopping' && line.level === 'error'));
    leases.leases.delete('ops/widgets'); // the Lease is free again
    const roundsAtRelease = elector.rounds();
    await eventually(() => elector.rounds() >= roundsAtRelease + 2, 'two election rounds after the release');
    await sleep(100);
    assert.equal(manager.isLeader, false, 'an instance that lost the lead stays a follower until it exits');
    assert.equal(ticks(), ticksAfterLoss);
  });

  it('logs a failed pass and retries it; a NotFound of an object the API server confirms gone is forgotten', async (t) => {
    const transport = await apiServer(t);
    const failures = new Map<ObjectKey, number>();
    const outcomes: string[] = [];
    const { log, lines } = logSink();
    const manager = new Manager({
      clients: { transport, coordination: memoryLeases() },
      log,
      namespaces: ['a'],
    });
    const controller = manager.controller({
      name: 'widget',
      concurrency: 1,
      reconcile: async (key) => {
        const failed = failures.get(key) ?? 0;
        failures.set(key, failed + 1);
        if (key === 'a/w1' && failed === 0) throw Object.assign(new Error('forbidden'), { statusCode: 403 });
        if (key === 'a/gone') throw Object.assign(new Error('not found'), { statusCode: 404 });
        return {};
      },
      confirmGone: (key) => Promise.resolve(key === 'a/gone'),
      onReconcile: (result) => outcomes.push(result),
    });
    controller.for(kind('Widget', [object('w1', 1), object('gone', 1)]));
    await manager.start();
    t.after(() => manager.stop());
    await eventually(() => (failures.get('a/w1') ?? 0) === 2, 'the retry of w1');
    await manager.idle();
    assert.equal(failures.get('a/gone'), 1, 'a gone object is not retried');
    assert.deepEqual(outcomes.sort(), ['error', 'success', 'success']);
    const failure = lines.find((line) => line.msg === 'reconcile failed; retrying');
    assert.equal(failure?.level, 'error', 'a refusal is an error, not a warning');
    assert.equal(failure?.namespace, 'a');
    assert.equal(failure?.name, 'w1');
    assert.equal(failure?.attempt, 1);
  });
  it("queues an urgent event's pass at once and folds the others for the event delay", async (t) => {
    const delayMs = 2_000;
    const transport = await apiServer(t, {
      '/api/v1/namespaces/a/parts': [
        { type: 'MODIFIED', object: object('p1', 2, { owner: 'w1' }) },
        { type: 'MODIFIED', object: object('p2', 2, { owner: 'w2', urgent: 'yes' }) },
      ],
    });
    const manager = new Manager({
      clients: { transport, coordination: memoryLeases() },
      log: logSink().log,
      namespaces: ['a'],
    });
    const passes: { key: ObjectKey; at: number }[] = [];
    const controller = manager.controller({
      name: 'widget',
      concurrency: 1,
      reconcile: async (key) => {
        passes.push({ key, at: performance.now() });
        return {};
      },
      eventDelayMs: delayMs,
    });
    controller.for(kind('Widget', [object('w1', 1), object('w2', 1)]));
    controller.watches(kind('Part', []), {
      map: (part) => objectKey('a', part.metadata?.labels?.owner ?? ''),
      urgent: (part) => part.metadata?.labels?.urgent === 'yes',
    });
    await manager.start();
    t.after(() => manager.stop());
    const started = performance.now();
    await eventually(() => passes.length >= 3, 'the pass of the urgent Part');
    const urgentPass = passes[2];
    assert.equal(urgentPass?.key, 'a/w2');
    assert.ok(
      urgentPass.at - started < delayMs / 2,
      `the urgent pass came ${urgentPass.at - started} ms after the start`,
    );
    await eventually(() => passes.length >= 4, 'the folded pass of the other Part', delayMs * 3);
    assert.equal(passes[3]?.key, 'a/w1');
    assert.ok((passes[3]?.at ?? 0) - started >= delayMs - 100, 'the other pass waited out the delay');
  });
});
