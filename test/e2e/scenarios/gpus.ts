// GPUs in R (docs/mpi.md): a container's nvidia.com/gpu reaches R as GPU ids per broker, so Flux's
// scheduler counts them and `flux run -g 1` gets one, bound through CUDA_VISIBLE_DEVICES. There is no
// GPU here: the real node advertises nvidia.com/gpu as an extended resource (a node status patch, as
// Kubernetes documents for resources without a device plugin), which the scheduler and the kubelet
// count like any other, and Flux, real, does the rest. Every call to the cluster has a timeout.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION } from '../../../src/api/index.ts';
import { REAL_NODE_NAME } from '../../../workbench/src/localcluster/real-node/config.ts';
import { cluster, waitFor, within } from '../../harness/cluster.ts';
import { applyMiniCluster, waitForCondition } from '../../harness/operator.ts';
import { fluxFromView, podAt, realMiniCluster, scenario, waitForNodesUp } from '../../harness/real-node.ts';

const GPU = 'nvidia.com/gpu';
/** The JSON pointer of the GPU count in the node's capacity (`/` written `~1`). */
const CAPACITY_PATH = `/status/capacity/${GPU.replace('/', '~1')}`;

/** Sets (a count) or removes (undefined) the real node's advertised GPUs. */
async function advertiseGpus(count: number | undefined): Promise<void> {
  const { core } = await cluster();
  const body =
    count === undefined
      ? [{ op: 'remove', path: CAPACITY_PATH }]
      : [{ op: 'add', path: CAPACITY_PATH, value: String(count) }];
  await within(
    `patching ${REAL_NODE_NAME}'s capacity`,
    // An array: a JSON patch.
    core.patchNodeStatus({ name: REAL_NODE_NAME, body }),
  );
}

export function gpuScenarios(): void {
  describe('GPUs', () => {
    it('nvidia.com/gpu in the container reaches R: Flux counts 1 GPU per broker and `flux run -g 1` gets id 0', async (t) => {
      const { namespace, clients } = await scenario(t, 'gpus');
      await advertiseGpus(2);
      t.after(() => advertiseGpus(undefined).catch(() => undefined));
      await waitFor(
        async () => {
          const node = await within('reading the node', clients.core.readNode({ name: REAL_NODE_NAME }));
          return node.status?.allocatable?.[GPU] === '2';
        },
        { what: `${REAL_NODE_NAME} allocating 2 ${GPU}`, timeoutMs: 30_000, intervalMs: 500 },
      );
      const object = realMiniCluster(
        namespace,
        'gpus',
        { size: 2, interactive: true },
        { image: 'localhost/plain:bookworm', container: { resources: { limits: { [GPU]: 1 } } } },
      );
      await applyMiniCluster(clients, { ...object, apiVersion: API_VERSION });
      await waitForCondition(clients, namespace, 'gpus', 'Ready', 'True', 240_000);
      const lead = (await podAt(clients, namespace, 'gpus')).metadata?.name ?? '';
      await waitForNodesUp(namespace, lead, 2, 120_000, fluxFromView);

      // The scheduler's view: 2 brokers, 1 GPU each.
      const { stdout: resources } = await fluxFromView(namespace, lead, [
        'resource',
        'list',
        '--no-header',
        '-o',
        '{state} {nnodes} {ngpus}',
      ]);
      assert.match(resources, /^\s*free 2 2\s*$/m, resources);

      // A job's GPU request: R's id on its broker, bound through CUDA_VISIBLE_DEVICES.
      const { stdout: visible } = await fluxFromView(namespace, lead, [
        'run',
        '-N2',
        '-n2',
        '-g1',
        'printenv',
        'CUDA_VISIBLE_DEVICES',
      ]);
      assert.deepEqual(visible.trim().split('\n'), ['0', '0']);

      // More GPUs than a broker has: Flux refuses it as unsatisfiable, never runs it without.
      await assert.rejects(
        fluxFromView(namespace, lead, ['run', '-N1', '-n1', '-g2', 'true']),
        /unsatisfiable|Unsatisfiable/,
      );
    });
  });
}
