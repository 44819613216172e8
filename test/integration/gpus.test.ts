// GPUs on simulated nodes (docs/mpi.md): kwok nodes that advertise nvidia.com/gpu take the brokers of a
// MiniCluster that asks for GPUs, its R lists them per broker, each pod's entrypoint is told the count,
// and a MiniCluster that asks for more GPUs than a node has waits unscheduled. What Flux does with them
// is shown with real Flux on the real node (test/e2e/scenarios/gpus.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { cluster, waitFor, within, withNamespace } from '../harness/cluster.ts';
import { applyMiniCluster, miniClusterObject, podsOf, startOperator } from '../harness/operator.ts';

const GPU = 'nvidia.com/gpu';

/** A simulated node of 4 GPUs that only pods selecting `gpu-test=<label>` land on. */
function gpuNode(name: string, label: string): V1Node {
  const resources = { cpu: '16', memory: '64Gi', pods: '20', [GPU]: '4' };
  return {
    metadata: {
      name,
      labels: { type: 'kwok', 'kubernetes.io/hostname': name, 'gpu-test': label },
      annotations: { 'kwok.x-k8s.io/node': 'fake' },
    },
    spec: { taints: [{ key: 'gpu-test', value: label, effect: 'NoSchedule' }] },
    status: { capacity: resources, allocatable: resources },
  };
}

describe('GPUs on simulated nodes', () => {
  it('brokers asking nvidia.com/gpu land on GPU nodes, R lists their GPUs; more than a node has waits', async (t) => {
    const namespace = await withNamespace(t, 'gpus');
    const { core } = await cluster();
    const nodes = [`${namespace}-gpu-0`, `${namespace}-gpu-1`];
    for (const name of nodes) {
      await within(`creating node ${name}`, core.createNode({ body: gpuNode(name, namespace) }));
      t.after(() => within(`deleting node ${name}`, core.deleteNode({ name })).catch(() => undefined));
    }
    const operator = await startOperator(namespace);
    t.after(() => operator.stop());
    const { clients } = operator;
    const onGpuNodes = {
      nodeSelector: { 'gpu-test': namespace },
      tolerations: [{ key: 'gpu-test', operator: 'Equal', value: namespace, effect: 'NoSchedule' }],
    };
    const withGpus = (name: string, gpus: number) =>
      miniClusterObject(namespace, name, {
        size: 2,
        pod: onGpuNodes,
        containers: [
          {
            image: 'localhost/plain:bookworm',
            command: 'hostname',
            cores: 8,
            resources: { limits: { [GPU]: gpus } },
          },
        ],
      });

    await applyMiniCluster(clients, withGpus('fits', 2));
    const running = await waitFor(
      async () => {
        const pods = await within('listing pods', podsOf(clients, namespace, 'fits'));
        return pods.length === 2 && pods.every((pod) => pod.status?.phase === 'Running') ? pods : false;
      },
      { what: 'both brokers running on GPU nodes', timeoutMs: 60_000 },
    );
    for (const pod of running) assert.ok(nodes.includes(pod.spec?.nodeName ?? ''), pod.spec?.nodeName);

    const configMap = await within(
      'reading the ConfigMap',
      core.readNamespacedConfigMap({ name: 'fits-flux-config', namespace }),
    );
    const resource = JSON.parse(configMap.data?.R ?? '{}') as {
      execution?: { R_lite?: { rank: string; children: Record<string, string> }[] };
    };
    assert.deepEqual(resource.execution?.R_lite, [{ rank: '0-1', children: { core: '0-7', gpu: '0-1' } }]);
    assert.match(configMap.data?.['entrypoint.sh'] ?? '', /^placement_gpus='?2'?$/m);

    // 8 GPUs per broker: no node has that many, so no broker is scheduled.
    await applyMiniCluster(clients, withGpus('too-many', 8));
    const pending = await waitFor(
      async () => {
        const pods = await within('listing pods', podsOf(clients, namespace, 'too-many'));
        return pods.length === 2 &&
          pods.every((pod) =>
            pod.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False'),
          )
          ? pods
          : false;
      },
      { what: 'the brokers asking 8 GPUs unschedulable', timeoutMs: 60_000 },
    );
    for (const pod of pending) {
      const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
      assert.match(scheduled?.message ?? '', /Insufficient nvidia\.com\/gpu/, scheduled?.message);
    }
  });
});
