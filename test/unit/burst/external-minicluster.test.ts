import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { hubModelOf, validateMiniClusterV1alpha1 } from '../../../src/api/index.ts';
import { validateMiniCluster } from '../../../src/api/index.ts';
import { burstLocal, burstSecrets, externalMiniCluster } from '../../../src/burst/external-minicluster.ts';
import { brokerHosts, renderMiniCluster } from '../../../src/render/index.ts';
import {
  APP_IMAGE,
  IMAGE,
  KEYS,
  VIEW_IMAGE,
  defaultedV1alpha1,
  defaultedV1alpha2,
} from '../render/fixtures.ts';

const local = defaultedV1alpha1(
  {
    size: 2,
    interactive: true,
    containers: [
      {
        image: IMAGE,
        cores: 4,
        environment: { A: '1' },
        volumes: { data: { path: '/data', claimName: 'pvc' } },
        imagePullSecret: 'regcred',
      },
    ],
    flux: {
      bursting: {
        clusters: [
          { name: 'burst-0', size: 4 },
          { name: 'burst-1', size: 2 },
        ],
      },
    },
  },
  'burst-local',
);
local.metadata.uid = 'uid-local';

const request = {
  local,
  slot: 'burst-0',
  size: 3,
  leadBroker: { address: '203.0.113.10', port: 30093 },
  namespace: 'remote',
};

describe('externalMiniCluster', () => {
  it('is a valid MiniCluster whose brokers join the local instance with the same ranks', () => {
    const external = externalMiniCluster(request);
    assert.match(external.name, /^burst-local-burst-0-[0-9a-f]{10}$/);
    const validated = validateMiniClusterV1alpha1(external.miniCluster);
    assert.ok(validated.ok, JSON.stringify(validated));
    const model = hubModelOf(validated.value);
    const objects = renderMiniCluster(model, KEYS);
    const job = objects.find((object) => object.kind === 'Job');
    assert.equal(job?.metadata.name, 'burst-0'); // pods burst-0-<i>: the hosts the local lists
    assert.deepEqual(brokerHosts(model), brokerHosts(hubModelOf(local)));
    const configMap = objects.find((object) => object.kind === 'ConfigMap') as {
      data?: Record<string, string>;
    };
    const toml = JSON.parse(JSON.stringify(parseToml(configMap.data?.['broker.toml'] ?? ''))) as {
      bootstrap: { hosts: unknown[] };
    };
    assert.deepEqual(toml.bootstrap.hosts, [
      { host: 'burst-local-0', connect: 'tcp://203.0.113.10:30093' },
      { host: 'burst-local-1' },
      { host: 'burst-0-[0-3]' },
      { host: 'burst-1-[0-1]' },
    ]);
    // Keys come from the copied Secrets, none generated there.
    assert.deepEqual(
      objects.filter((object) => object.kind === 'Secret'),
      [],
    );
  });

  it('takes what the brokers need and leaves local-only references behind', () => {
    const { miniCluster } = externalMiniCluster(request);
    assert.equal(miniCluster.spec.size, 3);
    assert.equal(miniCluster.spec.maxSize, 4);
    const [container] = miniCluster.spec.containers;
    assert.equal(container?.image, IMAGE);
    assert.deepEqual(container?.environment, { A: '1' });
    assert.equal(container?.volumes, undefined);
    assert.equal(container?.imagePullSecret, undefined);
    assert.deepEqual(miniCluster.spec.flux?.bursting?.leadBroker, {
      address: '203.0.113.10',
      name: 'burst-local',
      size: 2,
      port: 30093,
    });
    assert.deepEqual(miniCluster.metadata.labels, {
      'app.kubernetes.io/managed-by': 'flux-operator',
      'flux-framework.org/burst-origin-uid': 'uid-local',
      'flux-framework.org/burst-slot': 'burst-0',
      'flux-framework.org/burst-config-hash': externalMiniCluster(request).configHash,
    });
  });

  it('is named by what defines it: the same request, the same name; a changed one, a new name', () => {
    assert.equal(externalMiniCluster(request).name, externalMiniCluster({ ...request }).name);
    assert.notEqual(
      externalMiniCluster(request).name,
      externalMiniCluster({ ...request, leadBroker: { address: '203.0.113.11', port: 30093 } }).name,
    );
    assert.notEqual(
      externalMiniCluster(request).name,
      externalMiniCluster({ ...request, slot: 'burst-1', size: 2 }).name,
    );
  });

  it('keeps its name when it grows within its slot: growing applies the same MiniCluster', () => {
    const small = externalMiniCluster({ ...request, size: 1 });
    const grown = externalMiniCluster({ ...request, size: 4 });
    assert.equal(grown.name, small.name);
    assert.equal(small.miniCluster.spec.size, 1);
    assert.equal(grown.miniCluster.spec.size, 4);
    assert.equal(grown.miniCluster.spec.maxSize, 4);
  });

  it('refuses a slot that is not declared or a size beyond the slot', () => {
    assert.throws(() => externalMiniCluster({ ...request, slot: 'burst-9' }), /slot burst-9 is not declared/);
    assert.throws(() => externalMiniCluster({ ...request, size: 5 }), /holds 1 to 4 brokers, not 5/);
  });

  it('copies the key Secrets as they are, under the names the spec mounts', () => {
    const external = externalMiniCluster(request);
    const secrets = burstSecrets(external, local, { curveCert: 'Y3VydmU=', mungeKey: 'bXVuZ2U=' });
    assert.deepEqual(
      secrets.map((secret) => [secret.metadata.name, secret.metadata.namespace, secret.data]),
      [
        ['burst-local-curve-cert', 'remote', { 'curve.cert': 'Y3VydmU=' }],
        ['burst-local-munge-key', 'remote', { 'munge.key': 'bXVuZ2U=' }],
      ],
    );
    assert.equal(external.miniCluster.spec.flux?.curveCertSecret, 'burst-local-curve-cert');
    assert.equal(external.miniCluster.spec.flux?.mungeSecret, 'burst-local-munge-key');
  });

  it('in its own cluster mounts the local key Secrets and keeps the pod placement; elsewhere neither', () => {
    const placed = defaultedV1alpha1(
      {
        ...structuredClone(local.spec),
        pod: {
          nodeSelector: { disk: 'ssd' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'flux', effect: 'NoSchedule' }],
        },
        flux: { ...structuredClone(local.spec.flux), mungeSecret: 'my-munge' },
      },
      'burst-local',
    );
    const same = externalMiniCluster({ ...request, local: placed, namespace: 'default', sameCluster: true });
    assert.deepEqual(same.secretNames, { curveCert: 'burst-local-curve-cert', mungeKey: 'my-munge' });
    assert.equal(same.miniCluster.spec.flux?.mungeSecret, 'my-munge');
    assert.deepEqual(same.miniCluster.spec.pod, {
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'flux', effect: 'NoSchedule' }],
    });
    const elsewhere = externalMiniCluster({ ...request, local: placed, namespace: 'default' });
    assert.equal(elsewhere.miniCluster.spec.pod, undefined);
    assert.equal(elsewhere.miniCluster.spec.flux?.mungeSecret, 'burst-local-munge-key');
    // Placement and keys are not part of what names it: the same slot request, the same name.
    assert.equal(same.name, elsewhere.name);
  });

  it('from a MiniCluster whose Flux comes from a view: a v1alpha2 one with the same view, joining the same way', () => {
    const viewLocal = defaultedV1alpha2(
      {
        size: 2,
        interactive: true,
        containers: [{ image: APP_IMAGE, environment: { A: '1' } }],
        flux: { container: { medium: 'Memory' }, bursting: { clusters: [{ name: 'burst-0', size: 4 }] } },
      },
      'burst-local',
    );
    const external = externalMiniCluster({ ...request, ...burstLocal(viewLocal) });
    const validated = validateMiniCluster(external.miniCluster, { fluxViewImage: 'not-this' });
    assert.ok(validated.ok, JSON.stringify(validated));
    const burst = validated.value;
    assert.equal(burst.apiVersion, 'flux-framework.org/v1alpha2');
    // The local view, as the local operator defaulted it (not the burst target's default).
    assert.equal(burst.spec.flux.container.image, VIEW_IMAGE);
    assert.equal(burst.spec.flux.container.medium, 'Memory');
    assert.equal(burst.spec.flux.container.disable, false);
    assert.deepEqual(burst.spec.flux.container, viewLocal.spec.flux.container);
    assert.equal(burst.spec.containers[0]?.image, APP_IMAGE);
    assert.deepEqual(burst.spec.containers[0]?.environment, { A: '1' });
    assert.deepEqual(burst.metadata.annotations, {
      'flux-framework.org/burst-origin': 'default/burst-local',
    });
    assert.deepEqual(burst.spec.flux.bursting?.leadBroker, {
      address: '203.0.113.10',
      name: 'burst-local',
      size: 2,
      port: 30093,
    });

    const objects = renderMiniCluster(burst, KEYS);
    const job = objects.find((object) => object.kind === 'Job') as unknown as {
      metadata: { name: string };
      spec: { template: { spec: { initContainers?: { image: string }[] } } };
    };
    assert.equal(job.metadata.name, 'burst-0');
    assert.deepEqual(
      job.spec.template.spec.initContainers?.map((container) => container.image),
      [VIEW_IMAGE],
    );
    assert.deepEqual(brokerHosts(burst), brokerHosts(viewLocal));

    // Flux in the image stays v1alpha1, as before.
    const inImage = defaultedV1alpha2(
      {
        ...structuredClone(viewLocal.spec),
        flux: { ...structuredClone(viewLocal.spec.flux), container: { disable: true } },
      },
      'burst-local',
    );
    assert.equal(burstLocal(inImage).fluxView, undefined);
    assert.equal(
      externalMiniCluster({ ...request, ...burstLocal(inImage) }).miniCluster.apiVersion,
      'flux-framework.org/v1alpha1',
    );
  });
});
