import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1PersistentVolume } from '@kubernetes/client-node';
import {
  COLLECTABLE_VOLUMES_SELECTOR,
  RECLAIM_PATCH,
  collectableVolumes,
  releasedVolumes,
} from '../../../../src/controllers/minicluster/volume-collector.ts';

function volume(name: string, labels: Record<string, string>, deleting = false): V1PersistentVolume {
  return { metadata: { name, labels, ...(deleting ? { deletionTimestamp: new Date(0) } : {}) } };
}

const ours = (namespace: string, uid: string, remove = 'true') => ({
  'flux-framework.org/minicluster-namespace': namespace,
  'flux-framework.org/minicluster-uid': uid,
  'flux-framework.org/delete-with-minicluster': remove,
});

describe('the volume collector', () => {
  const volumes = [
    volume('a.gone.data', ours('a', 'uid-gone')),
    volume('a.living.data', ours('a', 'uid-living')),
    volume('a.kept.data', ours('a', 'uid-gone', 'false')),
    volume('b.gone.data', ours('b', 'uid-gone-b')),
    volume('a.going.data', ours('a', 'uid-gone'), true),
    // Rendered without an owner (never applied by the controller) or not the operator's at all.
    volume('a.rendered.data', {
      'flux-framework.org/minicluster-namespace': 'a',
      'flux-framework.org/delete-with-minicluster': 'true',
    }),
    volume('users-own', {}),
  ];

  it('takes only volumes that go with a MiniCluster whose uid is gone, not already going', () => {
    const names = (namespaces: string[]) =>
      collectableVolumes(volumes, new Set(['uid-living']), namespaces).map((v) => v.metadata?.name);
    assert.deepEqual(names([]), ['a.gone.data', 'b.gone.data']);
    // An operator watching some namespaces leaves the others' volumes to theirs.
    assert.deepEqual(names(['a']), ['a.gone.data']);
  });

  it('lists only the operator’s volumes that go with their MiniCluster', () => {
    assert.equal(
      COLLECTABLE_VOLUMES_SELECTOR,
      'app.kubernetes.io/managed-by=flux-operator,app.kubernetes.io/component=storage,flux-framework.org/delete-with-minicluster=true',
    );
  });

  it('reclaims the wanted volumes that are Released (their claim went), and no other', () => {
    const live: Record<string, V1PersistentVolume> = {
      'a.mc.released': {
        spec: { claimRef: { name: 'mc.released', uid: 'old' } },
        status: { phase: 'Released' },
      },
      'a.mc.bound': { spec: { claimRef: { name: 'mc.bound', uid: 'now' } }, status: { phase: 'Bound' } },
      'a.mc.forgotten': { spec: { claimRef: { name: 'mc.forgotten' } }, status: { phase: 'Released' } },
      'a.other.released': {
        spec: { claimRef: { name: 'other.released', uid: 'x' } },
        status: { phase: 'Released' },
      },
    };
    assert.deepEqual(
      releasedVolumes(['a.mc.released', 'a.mc.bound', 'a.mc.forgotten', 'a.mc.absent'], (name) => live[name]),
      ['a.mc.released'],
    );
    assert.deepEqual(RECLAIM_PATCH, { spec: { claimRef: { uid: null, resourceVersion: null } } });
  });
});
