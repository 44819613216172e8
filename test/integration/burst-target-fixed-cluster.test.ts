// A GKE or EKS BurstTarget names a cluster the operator creates for it and deletes with it. Renaming
// that cluster in the spec would leave the first one running (and billed) with nothing to delete it,
// so the API server refuses it (the CRD's transition rules); no operator runs here: this is the API.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BURST_TARGET_PLURAL, GROUP, VERSION_V1ALPHA1 } from '../../src/api/index.ts';
import { apiClientsFor } from '../../src/kube/clients.ts';
import { cluster, withNamespace } from '../harness/cluster.ts';
import { createBurstTarget } from '../harness/burst-target.ts';
import { installCrd } from '../harness/operator.ts';

const GKE = {
  provider: 'gke',
  gke: { project: 'proj-fixed', location: 'us-central1', clusterName: 'burst', machineType: 'e2-standard-8' },
};
const EKS = {
  provider: 'eks',
  eks: {
    region: 'us-east-1',
    clusterName: 'burst',
    roleArn: 'arn:aws:iam::123456789012:role/eks-cluster',
    nodeRoleArn: 'arn:aws:iam::123456789012:role/eks-nodes',
    subnetIds: ['subnet-0a1b2c3d', 'subnet-4e5f6a7b'],
    instanceType: 'c5.4xlarge',
  },
};

/** A merge patch of the BurstTarget's spec; the API server's refusal message, or undefined if applied. */
async function patchSpec(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<string | undefined> {
  const clients = apiClientsFor((await cluster()).kc);
  try {
    await clients.custom.patchNamespacedCustomObject({
      group: GROUP,
      version: VERSION_V1ALPHA1,
      namespace,
      plural: BURST_TARGET_PLURAL,
      name,
      body: { spec },
    });
    return undefined;
  } catch (error) {
    return String((error as { body?: unknown }).body ?? error);
  }
}

describe('the cloud cluster a BurstTarget names', () => {
  it('cannot be renamed or moved once created (the API server refuses, naming the fields and what to do)', async (t) => {
    await installCrd();
    const namespace = await withNamespace(t, 'fixed-cluster');
    const clients = apiClientsFor((await cluster()).kc);
    await createBurstTarget(clients, namespace, 'gke', GKE);
    await createBurstTarget(clients, namespace, 'eks', EKS);

    const renamed = await patchSpec(namespace, 'gke', { gke: { clusterName: 'another' } });
    assert.match(
      renamed ?? 'applied',
      /spec\.gke\.project, location, clusterName name the cluster the operator made/,
    );
    assert.match(renamed ?? '', /create another BurstTarget/);
    const moved = await patchSpec(namespace, 'gke', { gke: { location: 'europe-west1' } });
    assert.match(moved ?? 'applied', /spec\.gke\.project, location, clusterName/);
    const eksRenamed = await patchSpec(namespace, 'eks', { eks: { clusterName: 'another' } });
    assert.match(eksRenamed ?? 'applied', /spec\.eks\.region, clusterName name the cluster/);

    // Only the fields naming the cluster are frozen: another field is still accepted (and the name kept).
    assert.equal(await patchSpec(namespace, 'gke', { gke: { nodeCount: 3 } }), undefined);
    assert.equal(await patchSpec(namespace, 'eks', { eks: { nodeCount: 2 } }), undefined);
    const live = (await clients.custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION_V1ALPHA1,
      namespace,
      plural: BURST_TARGET_PLURAL,
      name: 'gke',
    })) as { spec: { gke: { clusterName: string; nodeCount: number } } };
    assert.deepEqual([live.spec.gke.clusterName, live.spec.gke.nodeCount], ['burst', 3]);
  });
});
