import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import { API_VERSION_V1ALPHA1, KIND } from '../../../src/api/index.ts';
import {
  persistentVolumeName,
  renderMiniCluster,
  renderStorage,
  storageClaimName,
} from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted, find, plain } from './fixtures.ts';

const OWNER = {
  apiVersion: API_VERSION_V1ALPHA1,
  kind: KIND,
  name: 'flux-sample',
  uid: '0e9c1a52-3b6f-4d2e-9a41-7f5d2c8b1a00',
};
const OWNER_REFERENCE = { ...OWNER, controller: true, blockOwnerDeletion: true };

const STORAGE_LABELS = {
  'app.kubernetes.io/name': 'flux-minicluster',
  'flux-framework.org/minicluster': 'flux-sample',
  'app.kubernetes.io/instance': 'flux-sample',
  'app.kubernetes.io/component': 'storage',
  'app.kubernetes.io/managed-by': 'flux-operator',
  'flux-framework.org/volume': 'data',
};

/** The v1alpha1 examples' volume: a hostpath directory mounted by every broker. */
const hostpathSpec = {
  volumes: { data: { storageClass: 'hostpath', path: '/tmp/workflow', labels: { type: 'local' } } },
  containers: [{ image: IMAGE, command: 'ls /data', volumes: { data: { path: '/data' } } }],
};

describe('spec.volumes storage', () => {
  it('names claims <minicluster>.<volume> and volumes <namespace>.<minicluster>.<volume>, apart where dashes would meet', () => {
    assert.equal(storageClaimName('flux-sample', 'data'), 'flux-sample.data');
    assert.equal(persistentVolumeName('team-a', 'flux-sample', 'data'), 'team-a.flux-sample.data');
    assert.notEqual(storageClaimName('a', 'b-c'), storageClaimName('a-b', 'c'));
    assert.notEqual(persistentVolumeName('a', 'b-c', 'd'), persistentVolumeName('a-b', 'c', 'd'));
  });

  it('renders a hostpath volume as a Retain PersistentVolume bound both ways to an owned claim', () => {
    const objects = renderStorage(defaulted(hostpathSpec, 'flux-sample', 'team-a'), OWNER);
    assert.deepEqual(plain(objects), [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: {
          name: 'team-a.flux-sample.data',
          labels: {
            type: 'local',
            ...STORAGE_LABELS,
            'flux-framework.org/minicluster-namespace': 'team-a',
            'flux-framework.org/delete-with-minicluster': 'true',
            'flux-framework.org/minicluster-uid': OWNER.uid,
          },
        },
        spec: {
          accessModes: ['ReadWriteMany'],
          capacity: { storage: '5Gi' },
          storageClassName: 'hostpath',
          persistentVolumeReclaimPolicy: 'Retain',
          volumeMode: 'Filesystem',
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            namespace: 'team-a',
            name: 'flux-sample.data',
          },
          hostPath: { path: '/tmp/workflow' },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: 'flux-sample.data',
          namespace: 'team-a',
          labels: STORAGE_LABELS,
          ownerReferences: [OWNER_REFERENCE],
        },
        spec: {
          accessModes: ['ReadWriteMany'],
          storageClassName: 'hostpath',
          volumeMode: 'Filesystem',
          resources: { requests: { storage: '5Gi' } },
          volumeName: 'team-a.flux-sample.data',
        },
      },
    ]);
  });

  it('renders a CSI volume with its driver, handle, attributes, Secret (in the MiniCluster namespace) and annotations', () => {
    const spec = {
      volumes: {
        data: {
          storageClass: 'csi-gcs',
          driver: 'gcs.csi.ofek.dev',
          path: '/tmp/data',
          secret: 'csi-gcs-secret',
          capacity: '25Gi',
          attributes: { mounter: 'geesefs' },
          annotations: { 'provider.svc/attribute': 'value' },
          claimAnnotations: { 'gcs.csi.ofek.dev/bucket': 'flux-operator-storage' },
        },
      },
      containers: [{ image: IMAGE, volumes: { data: { path: '/workflow', readOnly: true } } }],
    };
    const [volume, claim] = plain(renderStorage(defaulted(spec, 'flux-sample', 'flux-operator'))) as [
      Record<string, Record<string, unknown>>,
      Record<string, Record<string, unknown>>,
    ];
    const secretRef = { name: 'csi-gcs-secret', namespace: 'flux-operator' };
    assert.deepEqual(volume?.spec?.csi, {
      driver: 'gcs.csi.ofek.dev',
      volumeHandle: 'csi-gcs',
      volumeAttributes: { mounter: 'geesefs' },
      nodePublishSecretRef: secretRef,
      nodeStageSecretRef: secretRef,
      controllerPublishSecretRef: secretRef,
    });
    assert.equal(volume?.spec?.hostPath, undefined);
    assert.deepEqual(volume?.spec?.capacity, { storage: '25Gi' });
    assert.deepEqual(volume?.metadata?.annotations, { 'provider.svc/attribute': 'value' });
    // Without an owner (`flux-operator render`), no uid label and no ownerReference.
    assert.equal(
      (volume?.metadata?.labels as Record<string, string>)['flux-framework.org/minicluster-uid'],
      undefined,
    );
    assert.deepEqual(claim?.metadata?.annotations, { 'gcs.csi.ofek.dev/bucket': 'flux-operator-storage' });
    assert.equal(claim?.metadata?.ownerReferences, undefined);
    assert.equal(claim?.spec?.volumeName, 'flux-operator.flux-sample.data');
  });

  it('renders only a claim, for its provisioner to fill, for another storage class without a driver', () => {
    const spec = {
      volumes: { scratch: { storageClass: 'standard-rwx', capacity: '1Gi' } },
      containers: [{ image: IMAGE, volumes: { scratch: { path: '/scratch' } } }],
    };
    assert.deepEqual(plain(renderStorage(defaulted(spec), OWNER)), [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: 'flux-sample.scratch',
          namespace: 'default',
          labels: { ...STORAGE_LABELS, 'flux-framework.org/volume': 'scratch' },
          ownerReferences: [OWNER_REFERENCE],
        },
        spec: {
          accessModes: ['ReadWriteMany'],
          storageClassName: 'standard-rwx',
          volumeMode: 'Filesystem',
          resources: { requests: { storage: '1Gi' } },
        },
      },
    ]);
  });

  it('with delete: false, leaves the claim unowned and labels the volume to be kept', () => {
    const spec = {
      ...hostpathSpec,
      volumes: { data: { path: '/srv/data', delete: false } },
    };
    const [volume, claim] = renderStorage(defaulted(spec), OWNER);
    assert.equal(volume?.metadata.labels?.['flux-framework.org/delete-with-minicluster'], 'false');
    assert.equal(claim?.metadata.ownerReferences, undefined);
  });

  it('mounts the claim in the pods where a container names the volume, beside sourced volumes, before the Job', () => {
    const spec = {
      ...hostpathSpec,
      containers: [
        {
          image: IMAGE,
          command: 'ls /data',
          volumes: { data: { path: '/data', readOnly: true }, scratch: { path: '/scratch', emptyDir: true } },
        },
      ],
    };
    const objects = renderMiniCluster(defaulted(spec), KEYS, { owner: OWNER });
    assert.deepEqual(
      objects.map((object) => object.kind),
      ['ConfigMap', 'Secret', 'Secret', 'Service', 'PersistentVolume', 'PersistentVolumeClaim', 'Job'],
    );
    const pod = (find.job(objects) as V1Job).spec?.template.spec;
    const userVolumes = pod?.volumes?.filter((volume) => !volume.name.startsWith('flux-operator-'));
    assert.deepEqual(userVolumes, [
      { name: 'data', persistentVolumeClaim: { claimName: 'flux-sample.data' } },
      { name: 'scratch', emptyDir: {} },
    ]);
    const mounts = pod?.containers[0]?.volumeMounts?.filter(
      (mount) => !mount.name.startsWith('flux-operator-'),
    );
    assert.deepEqual(mounts, [
      { name: 'data', mountPath: '/data', readOnly: true },
      { name: 'scratch', mountPath: '/scratch', readOnly: false },
    ]);
  });
});
