// The bench's own objects on the local control plane: namespaces, simulated nodes, and the wait for pods.
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Node } from '@kubernetes/client-node';
import type { ApiClients } from '../../src/kube/api-clients.ts';

const PODS_PER_NODE = 110;

/** Runs `work` over `items` with at most `limit` in flight. */
export async function pool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

export async function waitAllRunning(
  clients: ApiClients,
  namespace: string,
  expected: number,
  timeoutMs = Number.POSITIVE_INFINITY,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const pods = await clients.core.listNamespacedPod({ namespace });
    const running = pods.items.filter((pod) => pod.status?.phase === 'Running').length;
    if (running >= expected) return;
    if (performance.now() > deadline) {
      throw new Error(`${running} of ${expected} pods Running in ${namespace} after ${timeoutMs / 1000} s`);
    }
    await sleep(250);
  }
}

export async function createNamespace(clients: ApiClients, name: string): Promise<void> {
  await clients.core.createNamespace({ body: { metadata: { name } } });
  for (;;) {
    try {
      await clients.core.readNamespacedServiceAccount({ name: 'default', namespace: name });
      return;
    } catch {
      await sleep(100);
    }
  }
}

export async function deleteNamespace(clients: ApiClients, name: string): Promise<void> {
  try {
    await clients.core.deleteNamespace({ name });
  } catch {
    // already gone
  }
}

export async function waitGone(clients: ApiClients, name: string): Promise<void> {
  for (;;) {
    try {
      await clients.core.readNamespace({ name });
    } catch {
      return;
    }
    await sleep(1000);
  }
}

/** Enough simulated nodes for `pods` more pods (kwok manages every node with its annotation). */
export async function ensureCapacity(clients: ApiClients, pods: number): Promise<string[]> {
  const existing = (await clients.core.listNode()).items.length;
  const wanted = Math.ceil(pods / PODS_PER_NODE) - existing + 1;
  const names: string[] = [];
  for (let i = 0; i < wanted; i++) {
    const name = `bench-node-${i}`;
    const resources = { cpu: '64', memory: '256Gi', pods: String(PODS_PER_NODE) };
    const node: V1Node = {
      metadata: {
        name,
        labels: { type: 'kwok', 'kubernetes.io/hostname': name },
        annotations: { 'kwok.x-k8s.io/node': 'fake' },
      },
      status: {
        capacity: resources,
        allocatable: resources,
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      },
    };
    try {
      await clients.core.createNode({ body: node });
    } catch {
      // left from an earlier run
    }
    names.push(name);
  }
  return names;
}
