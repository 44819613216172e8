// The local control plane simulates what the operator relies on: an indexed Job's pods run on simulated
// nodes with stable hostnames and IPs behind a headless Service, stay Running until told to exit, and end
// with the exit code the test chooses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { EXIT_CODE_ANNOTATION } from '../../workbench/src/localcluster/index.ts';
import { annotatePod, cluster, waitFor, withNamespace } from '../harness/cluster.ts';

const INDEX = 'batch.kubernetes.io/job-completion-index';

function indexedJob(name: string, service: string, completions: number): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      completions,
      parallelism: completions,
      completionMode: 'Indexed',
      backoffLimit: 0,
      template: {
        metadata: { labels: { app: name } },
        spec: {
          subdomain: service,
          restartPolicy: 'Never',
          containers: [
            {
              name: 'broker',
              image: 'ghcr.io/converged-computing/flux-view-ubuntu:jammy',
              command: ['flux', 'broker'],
              ports: [{ name: 'flux', containerPort: 8050 }],
              resources: { requests: { cpu: '2', memory: '4Gi' } },
            },
          ],
        },
      },
    },
  };
}

function isComplete(job: V1Job, type: 'Complete' | 'Failed'): boolean {
  return job.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

async function jobPods(namespace: string, job: string): Promise<V1Pod[]> {
  const { core } = await cluster();
  const pods = await core.listNamespacedPod({
    namespace,
    labelSelector: `batch.kubernetes.io/job-name=${job}`,
  });
  return pods.items.sort((a, b) =>
    Number(a.metadata?.annotations?.[INDEX]) > Number(b.metadata?.annotations?.[INDEX]) ? 1 : -1,
  );
}

test('indexed Job behind a headless Service runs until its pods are told to exit', async (t) => {
  const namespace = await withNamespace(t, 'cp');
  const { core, batch, discovery } = await cluster();
  const job = 'flux-sample';
  const service = 'flux-sample';

  const nodes = await core.listNode({ labelSelector: 'type=kwok' });
  const simulated = new Set(nodes.items.map((n) => n.metadata?.name));
  assert.ok(simulated.size >= 4, `at least 4 simulated nodes, got ${[...simulated].join(', ')}`);
  for (const n of nodes.items) {
    assert.equal(n.status?.allocatable?.cpu, '8', `${n.metadata?.name} allocatable cpu`);
    assert.equal(n.status?.allocatable?.memory, '32Gi', `${n.metadata?.name} allocatable memory`);
  }

  await core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: service },
      spec: { clusterIP: 'None', selector: { app: job }, ports: [{ name: 'flux', port: 8050 }] },
    },
  });
  await batch.createNamespacedJob({ namespace, body: indexedJob(job, service, 3) });

  const running = await waitFor(
    async () => {
      const pods = await jobPods(namespace, job);
      return pods.length === 3 && pods.every((p) => p.status?.phase === 'Running' && p.status.podIP) && pods;
    },
    { what: '3 Running pods with an IP', timeoutMs: 60_000 },
  );
  const ips = new Set<string>();
  running.forEach((pod, i) => {
    assert.equal(pod.metadata?.annotations?.[INDEX], String(i));
    assert.equal(pod.spec?.hostname, `${job}-${i}`);
    assert.equal(pod.spec?.subdomain, service);
    assert.ok(
      simulated.has(pod.spec?.nodeName),
      `pod ${i} is on a simulated node, got ${pod.spec?.nodeName}`,
    );
    assert.match(pod.status?.podIP ?? '', /^10\.244\.\d+\.\d+$/);
    ips.add(pod.status?.podIP ?? '');
    const state = pod.status?.containerStatuses?.[0]?.state;
    assert.ok(state?.running, `container of pod ${i} is running: ${JSON.stringify(state)}`);
  });
  assert.equal(ips.size, 3, 'every pod has its own IP');

  const endpoints = await waitFor(
    async () => {
      const slices = await discovery.listNamespacedEndpointSlice({
        namespace,
        labelSelector: `kubernetes.io/service-name=${service}`,
      });
      const eps = slices.items.flatMap((s) => s.endpoints ?? []);
      const ready = eps.filter((e) => e.conditions?.ready === true && e.hostname);
      return ready.length === 3 && ready;
    },
    { what: 'an EndpointSlice with 3 ready endpoints', timeoutMs: 30_000 },
  );
  assert.deepEqual(endpoints.map((e) => e.hostname).sort(), [`${job}-0`, `${job}-1`, `${job}-2`]);
  assert.deepEqual(new Set(endpoints.flatMap((e) => e.addresses)), ips);

  // Nothing ends on its own: the brokers keep running.
  await sleep(3_000);
  const still = await jobPods(namespace, job);
  assert.deepEqual(
    still.map((p) => p.status?.phase),
    ['Running', 'Running', 'Running'],
  );
  let current = await batch.readNamespacedJob({ name: job, namespace });
  assert.equal(current.status?.active, 3);
  assert.ok(!isComplete(current, 'Complete'), 'the Job is not complete before its pods exit');

  // Two of three exit 0: the Job is still not complete.
  for (const pod of still.slice(0, 2)) {
    await annotatePod(core, namespace, pod.metadata?.name ?? '', { [EXIT_CODE_ANNOTATION]: '0' });
  }
  await waitFor(
    async () => {
      const pods = await jobPods(namespace, job);
      return pods.map((p) => p.status?.phase).join() === 'Succeeded,Succeeded,Running';
    },
    { what: 'pods 0 and 1 Succeeded, pod 2 Running' },
  );
  current = await batch.readNamespacedJob({ name: job, namespace });
  assert.ok(!isComplete(current, 'Complete'), 'the Job is not complete while pod 2 runs');

  await annotatePod(core, namespace, still[2]?.metadata?.name ?? '', { [EXIT_CODE_ANNOTATION]: '0' });
  current = await waitFor(
    async () => {
      const j = await batch.readNamespacedJob({ name: job, namespace });
      return isComplete(j, 'Complete') && j;
    },
    { what: `Job ${job} to complete`, timeoutMs: 30_000 },
  );
  assert.equal(current.status?.succeeded, 3);
  assert.equal(current.status?.completedIndexes, '0-2');
  for (const pod of await jobPods(namespace, job)) {
    const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
    assert.equal(terminated?.exitCode, 0);
    assert.equal(terminated?.reason, 'Completed');
  }
});

test('a non-zero exit code fails the pod and the Job', async (t) => {
  const namespace = await withNamespace(t, 'cp');
  const { core, batch } = await cluster();
  const job = 'flux-fails';
  await core.createNamespacedService({
    namespace,
    body: { metadata: { name: job }, spec: { clusterIP: 'None', selector: { app: job } } },
  });
  await batch.createNamespacedJob({ namespace, body: indexedJob(job, job, 1) });
  const [pod] = await waitFor(
    async () => {
      const pods = await jobPods(namespace, job);
      return pods.length === 1 && pods[0]?.status?.phase === 'Running' && pods;
    },
    { what: 'the pod to run', timeoutMs: 60_000 },
  );
  assert.ok(pod);
  await annotatePod(core, namespace, pod.metadata?.name ?? '', { [EXIT_CODE_ANNOTATION]: '3' });
  const failed = await waitFor(
    async () => {
      const p = await core.readNamespacedPod({ name: pod.metadata?.name ?? '', namespace });
      return p.status?.phase === 'Failed' && p;
    },
    { what: 'the pod to fail' },
  );
  const terminated = failed.status?.containerStatuses?.[0]?.state?.terminated;
  assert.equal(terminated?.exitCode, 3);
  assert.equal(terminated?.reason, 'Error');
  const j = await waitFor(
    async () => {
      const j = await batch.readNamespacedJob({ name: job, namespace });
      return isComplete(j, 'Failed') && j;
    },
    { what: `Job ${job} to fail (backoffLimit 0)`, timeoutMs: 30_000 },
  );
  assert.equal(j.status?.failed, 1);
  assert.ok(!isComplete(j, 'Complete'));
});
