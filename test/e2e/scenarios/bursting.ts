// Bursting with real Flux, to the in-cluster target: a burstable job asking for more nodes than the
// local MiniCluster runs makes the operator read the real queue, create the burst MiniCluster, whose
// brokers join the lead broker through its exposed Service; the job runs on local and burst nodes,
// and the idle burst cluster goes.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { GROUP, PLURAL, VERSION_V1ALPHA1 } from '../../../src/api/index.ts';
import { waitFor } from '../../harness/cluster.ts';
import { readStatus } from '../../harness/operator.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import {
  burstableMiniCluster,
  fluxFromView,
  fluxInLead,
  runBurstableHostnames,
  scenario,
  waitForNodesUp,
  type FluxIn,
} from '../../harness/real-node.ts';

/**
 * Idle for 30 s before it goes: the job (`uname -n`) ends as soon as the burst brokers join, and the
 * burst's Ready in status.bursts must last long enough to be seen (with 10 s a loaded CI run once
 * removed it before a status poll saw it).
 */
const BURST_POLICY = { idleSeconds: 30 };

export function burstingScenarios(): void {
  it('bursting in-cluster: a burstable 4-node job runs on the local and the burst brokers', async (t) => {
    const { namespace, clients } = await scenario(t, 'burst');
    const lead = await burstableMiniCluster(clients, namespace, 'local', BURST_POLICY);
    await burstsAndReturns(clients, namespace, lead, fluxInLead);
  });

  it('bursting in-cluster with Flux from the view on localhost/plain:bookworm (v1alpha2): the burst brokers run the same view and join', async (t) => {
    const { namespace, clients } = await scenario(t, 'burst-view');
    const lead = await burstableMiniCluster(clients, namespace, 'local', BURST_POLICY, { fromView: true });
    await burstsAndReturns(clients, namespace, lead, fluxFromView, async () => {
      // What was made for the burst: Flux from the view the local pods copy, in its pods too.
      const initImages = async (miniCluster: string) =>
        (
          await clients.core.listNamespacedPod({
            namespace,
            labelSelector: `flux-framework.org/minicluster=${miniCluster}`,
          })
        ).items.map((pod) => pod.spec?.initContainers?.map((container) => container.image) ?? []);
      const localImages = await initImages('local');
      const viewImage = localImages[0]?.[0];
      assert.ok(viewImage, `the local pods copy a view (${JSON.stringify(localImages)})`);
      const list = (await clients.custom.listNamespacedCustomObject({
        group: GROUP,
        version: 'v1alpha2',
        plural: PLURAL,
        namespace,
      })) as {
        items: {
          metadata: { name: string };
          spec: { flux: { container?: { image?: string; disable?: boolean } } };
        }[];
      };
      const burst = list.items.find((item) => item.metadata.name !== 'local');
      assert.equal(burst?.spec.flux.container?.image, viewImage);
      assert.equal(burst?.spec.flux.container?.disable, false);
      assert.deepEqual(await initImages(burst?.metadata.name ?? ''), [[viewImage], [viewImage]]);
    });
  });
}

/**
 * What a user does: submit work that does not fit, marked burstable; it waits for the burst cluster,
 * runs across both MiniClusters (one task per broker), and the idle burst cluster goes.
 */
async function burstsAndReturns(
  clients: ApiClients,
  namespace: string,
  lead: string,
  flux: FluxIn,
  whileBursting: () => Promise<void> = async () => undefined,
): Promise<void> {
  const ran = runBurstableHostnames(namespace, lead, flux);
  ran.catch(() => undefined); // awaited below, after the burst is seen

  const status = await waitFor(
    async () => {
      const s = await readStatus(clients, namespace, 'local');
      return s.bursts?.[0]?.state === 'Ready' ? s : false;
    },
    { what: 'the burst cluster Ready in status.bursts', timeoutMs: 180_000, intervalMs: 1_000 },
  );
  assert.deepEqual(
    status.bursts?.map((burst) => [burst.slot, burst.target, burst.size]),
    [['burst-0', 'in-cluster', 2]],
  );
  await whileBursting();
  assert.deepEqual(await ran, ['burst-0-0', 'burst-0-1', 'local-0', 'local-1']);

  // Idle: the burst cluster is removed, and its brokers leave the instance.
  await waitFor(
    async () => {
      const list = (await clients.custom.listNamespacedCustomObject({
        group: GROUP,
        version: VERSION_V1ALPHA1,
        plural: PLURAL,
        namespace,
      })) as { items: { metadata: { name: string } }[] };
      return list.items.length === 1 ? list.items : false;
    },
    { what: 'the idle burst MiniCluster to be removed', timeoutMs: 120_000, intervalMs: 1_000 },
  );
  await waitForNodesUp(namespace, lead, 2, 120_000, flux);
}
