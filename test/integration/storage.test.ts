/**
 * `spec.volumes` on the local control plane: the operator makes each entry's PersistentVolume and
 * claim, the cluster's PersistentVolume controller binds them to each other, and when the MiniCluster
 * is deleted what goes with it goes (delete: true) and the rest stays (delete: false; a volume the
 * user made and mounted by claimName), to be taken up again by a MiniCluster of the same name.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { deleteCustomObject } from '../../src/kube/custom-objects.ts';
import { PLURAL } from '../../src/api/index.ts';
import { httpStatus, waitFor, withNamespace } from '../harness/cluster.ts';
import {
  applyMiniCluster,
  miniClusterObject,
  readStatus,
  scaleMiniCluster,
  startOperator,
  waitForCondition,
} from '../harness/operator.ts';

async function readVolume(clients: ApiClients, name: string): Promise<V1PersistentVolume | undefined> {
  try {
    return await clients.core.readPersistentVolume({ name });
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw error;
  }
}

async function readClaim(
  clients: ApiClients,
  namespace: string,
  name: string,
): Promise<V1PersistentVolumeClaim | undefined> {
  try {
    return await clients.core.readNamespacedPersistentVolumeClaim({ name, namespace });
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw error;
  }
}

async function waitBound(
  clients: ApiClients,
  namespace: string,
  claim: string,
  volume: string,
): Promise<void> {
  await waitFor(
    async () => {
      const live = await readClaim(clients, namespace, claim);
      return live?.status?.phase === 'Bound' && live.spec?.volumeName === volume;
    },
    { what: `claim ${claim} bound to ${volume}`, timeoutMs: 60_000 },
  );
}

describe('spec.volumes on the local control plane', () => {
  it('makes bound PersistentVolumes and claims; on deletion removes what goes with the MiniCluster and keeps the rest', async (t) => {
    const namespace = await withNamespace(t, 'vol', { hostStorage: true });
    const operator = await startOperator(namespace);
    t.after(() => operator.stop());
    const { clients } = operator;
    const volumeOf = (volume: string) => `${namespace}.vols.${volume}`;
    // Whatever happens, no PersistentVolume of this test outlives it (they are cluster-wide).
    t.after(async () => {
      const { items } = await clients.core.listPersistentVolume({
        labelSelector: `flux-framework.org/minicluster-namespace=${namespace}`,
      });
      for (const volume of [...items, { metadata: { name: `${namespace}-mine` } }]) {
        await clients.core
          .deletePersistentVolume({ name: volume.metadata?.name ?? '' })
          .catch(() => undefined);
      }
    });

    // A volume and claim the user made, mounted by claimName: never the operator's to remove.
    await clients.core.createPersistentVolume({
      body: {
        metadata: { name: `${namespace}-mine` },
        spec: {
          accessModes: ['ReadWriteOnce'],
          capacity: { storage: '1Gi' },
          hostPath: { path: '/srv/mine' },
          persistentVolumeReclaimPolicy: 'Retain',
          storageClassName: 'manual',
          claimRef: { namespace, name: 'mine' },
        },
      },
    });
    await clients.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'mine', namespace },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'manual',
          resources: { requests: { storage: '1Gi' } },
          volumeName: `${namespace}-mine`,
        },
      },
    });

    const miniCluster = miniClusterObject(namespace, 'vols', {
      size: 2,
      interactive: true,
      volumes: {
        scratch: {
          storageClass: 'hostpath',
          path: '/tmp/scratch',
          capacity: '2Gi',
          labels: { type: 'local' },
        },
        keep: { path: '/srv/keep', delete: false, claimAnnotations: { 'example.com/purpose': 'results' } },
      },
      containers: [
        {
          image: 'ghcr.io/flux-framework/flux-restful-api:latest',
          volumes: { scratch: { path: '/scratch' }, keep: { path: '/keep', readOnly: true } },
          existingVolumes: { mine: { path: '/mine', claimName: 'mine' } },
        },
      ],
    });
    await applyMiniCluster(clients, miniCluster);
    await waitBound(clients, namespace, 'vols.scratch', volumeOf('scratch'));
    await waitBound(clients, namespace, 'vols.keep', volumeOf('keep'));
    await waitForCondition(clients, namespace, 'vols', 'Ready', 'True', 90_000);

    const uid = (
      (await clients.custom.getNamespacedCustomObject({
        group: 'flux-framework.org',
        version: 'v1alpha1',
        namespace,
        plural: PLURAL,
        name: 'vols',
      })) as { metadata: { uid: string } }
    ).metadata.uid;
    const scratch = await readVolume(clients, volumeOf('scratch'));
    assert.equal(scratch?.spec?.hostPath?.path, '/tmp/scratch');
    assert.equal(scratch?.spec?.persistentVolumeReclaimPolicy, 'Retain');
    assert.deepEqual(scratch?.spec?.capacity, { storage: '2Gi' });
    assert.equal(scratch?.spec?.claimRef?.name, 'vols.scratch');
    assert.equal(scratch?.spec?.claimRef?.namespace, namespace);
    assert.equal(scratch?.metadata?.ownerReferences, undefined);
    assert.equal(scratch?.metadata?.labels?.type, 'local');
    assert.equal(scratch?.metadata?.labels?.['flux-framework.org/minicluster-uid'], uid);
    assert.equal(scratch?.metadata?.labels?.['flux-framework.org/delete-with-minicluster'], 'true');
    const keepVolume = await readVolume(clients, volumeOf('keep'));
    assert.equal(keepVolume?.metadata?.labels?.['flux-framework.org/delete-with-minicluster'], 'false');

    const scratchClaim = await readClaim(clients, namespace, 'vols.scratch');
    assert.equal(scratchClaim?.metadata?.ownerReferences?.[0]?.uid, uid);
    const keepClaim = await readClaim(clients, namespace, 'vols.keep');
    assert.equal(keepClaim?.metadata?.ownerReferences, undefined);
    assert.equal(keepClaim?.metadata?.annotations?.['example.com/purpose'], 'results');

    const pod = await clients.core.readNamespacedPod({ name: 'vols-0', namespace }).catch(async () => {
      const { items } = await clients.core.listNamespacedPod({ namespace });
      return items[0];
    });
    const claims = (pod?.spec?.volumes ?? [])
      .flatMap((volume) =>
        volume.persistentVolumeClaim ? [`${volume.name}=${volume.persistentVolumeClaim.claimName}`] : [],
      )
      .sort();
    assert.deepEqual(claims, ['keep=vols.keep', 'mine=mine', 'scratch=vols.scratch']);

    // Passes that change other things write no storage (the caches hold it as applied).
    const storageWrites = () =>
      operator.writes.filter((write) => /^(apply|patch):persistentvolume/.test(write)).length;
    const writesBefore = storageWrites();
    await scaleMiniCluster(clients, namespace, 'vols', 1);
    await waitFor(async () => (await readStatus(clients, namespace, 'vols')).size === 1, {
      what: 'status.size 1',
    });
    await operator.manager.idle();
    assert.equal(storageWrites(), writesBefore);

    await deleteCustomObject(clients.custom, PLURAL, namespace, 'vols');
    await waitFor(async () => (await readVolume(clients, volumeOf('scratch'))) === undefined, {
      what: 'the delete: true PersistentVolume to go',
      timeoutMs: 90_000,
    });
    assert.equal(await readClaim(clients, namespace, 'vols.scratch'), undefined);
    assert.ok(operator.writes.includes('delete:persistentvolumes'));
    // What outlives the MiniCluster by design, and what the user made, stays bound.
    assert.equal((await readClaim(clients, namespace, 'vols.keep'))?.status?.phase, 'Bound');
    assert.equal((await readVolume(clients, volumeOf('keep')))?.status?.phase, 'Bound');
    assert.equal((await readClaim(clients, namespace, 'mine'))?.status?.phase, 'Bound');
    assert.equal((await readVolume(clients, `${namespace}-mine`))?.status?.phase, 'Bound');

    // A MiniCluster of the same name takes the kept storage up again, and gets new storage for the rest.
    await applyMiniCluster(clients, miniCluster);
    await waitBound(clients, namespace, 'vols.scratch', volumeOf('scratch'));
    await waitForCondition(clients, namespace, 'vols', 'Ready', 'True', 90_000);
    assert.equal((await readClaim(clients, namespace, 'vols.keep'))?.metadata?.uid, keepClaim?.metadata?.uid);
  });

  it('makes a claim deleted by hand again, and its Released PersistentVolume takes it', async (t) => {
    const namespace = await withNamespace(t, 'vol', { hostStorage: true });
    const operator = await startOperator(namespace);
    t.after(() => operator.stop());
    const { clients } = operator;
    const volumeName = `${namespace}.done.data`;
    t.after(() => clients.core.deletePersistentVolume({ name: volumeName }).catch(() => undefined));
    // No pod mounts it, so nothing holds the claim when it is deleted.
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, 'done', {
        size: 1,
        interactive: true,
        volumes: { data: { path: '/srv/done' } },
      }),
    );
    await waitBound(clients, namespace, 'done.data', volumeName);
    const first = await readClaim(clients, namespace, 'done.data');
    await clients.core.deleteNamespacedPersistentVolumeClaim({ name: 'done.data', namespace });
    await waitFor(
      async () => {
        const claim = await readClaim(clients, namespace, 'done.data');
        return (
          claim !== undefined &&
          claim.metadata?.uid !== first?.metadata?.uid &&
          claim.status?.phase === 'Bound'
        );
      },
      { what: 'a new claim done.data, bound', timeoutMs: 90_000 },
    );
    const volume = await readVolume(clients, volumeName);
    assert.equal(volume?.status?.phase, 'Bound');
    assert.notEqual(volume?.spec?.claimRef?.uid, first?.metadata?.uid);
  });
});
