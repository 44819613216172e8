import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allowHostStorageHint,
  allowsHostStorage,
  hostStorageFields,
  hostStorageRefusal,
} from '../../../src/api/index.ts';

describe('hostStorageFields', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['nothing', { containers: [{ image: 'a' }] }, []],
    [
      'a spec.volumes entry without storageClass (hostpath is the default)',
      { volumes: { root: { path: '/' } } },
      ['spec.volumes.root (storageClass hostpath, path /)'],
    ],
    [
      'a CSI spec.volumes entry (its handle may name any volume of the driver)',
      {
        volumes: { other: { storageClass: 'gcs', driver: 'gcs.csi.ofek.dev', volumeHandle: 'their-bucket' } },
      },
      ['spec.volumes.other (CSI driver gcs.csi.ofek.dev)'],
    ],
    ['a claim a provisioner fills', { volumes: { data: { storageClass: 'standard' } } }, []],
    [
      'container and service volumes with hostPath or csiDriver, v1alpha1 existingVolumes included',
      {
        containers: [
          { image: 'a', volumes: { ok: { path: '/x', configMapName: 'c' } } },
          {
            image: 'b',
            volumes: { etc: { path: '/e', hostPath: '/etc' } },
            existingVolumes: { dev: { path: '/d', hostPath: '/dev' } },
          },
        ],
        services: [{ name: 's', volumes: { v: { path: '/v', csiDriver: 'x.csi.io' } } }],
      },
      [
        'spec.containers[1].volumes.etc.hostPath',
        'spec.containers[1].existingVolumes.dev.hostPath',
        'spec.services[0].volumes.v.csiDriver',
      ],
    ],
    ['not an object', 'spec' as unknown as Record<string, unknown>, []],
  ];
  for (const [what, spec, expected] of cases) {
    it(what, () => assert.deepEqual(hostStorageFields(spec), expected));
  }
});

describe('allowsHostStorage', () => {
  it('only for the label with the value allowed', () => {
    assert.equal(allowsHostStorage({ 'flux-framework.org/host-storage': 'allowed' }), true);
    assert.equal(allowsHostStorage({ 'flux-framework.org/host-storage': 'true' }), false);
    assert.equal(allowsHostStorage({}), false);
    assert.equal(allowsHostStorage(undefined), false);
  });
});

describe('hostStorageRefusal', () => {
  it('names the fields, the namespace, the label and each way to allow it', () => {
    const message = hostStorageRefusal('team-a', ['spec.volumes.root (storageClass hostpath, path /)']);
    assert.ok(message.startsWith('spec.volumes.root (storageClass hostpath, path /): '), message);
    assert.ok(message.includes('namespace team-a does not allow'), message);
    assert.ok(message.endsWith(allowHostStorageHint('team-a')), message);
    assert.match(message, /kubectl label namespace team-a flux-framework\.org\/host-storage=allowed/);
    assert.match(message, /flux-operator install --allow-host-storage team-a/);
    assert.match(message, /Helm value hostStorageNamespaces/);
  });
});
