import assert from 'node:assert/strict';
import type { V1Service } from '@kubernetes/client-node';
import { describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { decodeHostlist } from '../../../src/flux/index.ts';
import type { MiniClusterV1alpha1Spec } from '../../../src/api/index.ts';
import { brokerHosts, renderMiniCluster } from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted, find, plain } from './fixtures.ts';

interface ParsedBrokerConfig {
  bootstrap: { hosts: { host: string; connect?: string }[]; default_connect: string };
}

function brokerConfig(objects: ReturnType<typeof renderMiniCluster>): ParsedBrokerConfig {
  return plain(parseToml(find.configMap(objects).data?.['broker.toml'] ?? '')) as ParsedBrokerConfig;
}

const localSpec: Partial<MiniClusterV1alpha1Spec> = {
  size: 2,
  interactive: true,
  containers: [{ image: IMAGE, cores: 4 }],
  flux: { bursting: { clusters: [{ name: 'burst-0', size: 4 }] } },
};
const local = defaulted(localSpec, 'burst-local');

const external = defaulted(
  {
    size: 4,
    interactive: true,
    containers: [{ image: IMAGE, cores: 4 }],
    flux: {
      curveCertSecret: 'burst-local-curve-cert',
      mungeSecret: 'burst-local-munge-key',
      bursting: {
        leadBroker: { address: '203.0.113.10', name: 'burst-local', size: 2, port: 30093 },
        clusters: [{ name: 'burst-0', size: 4 }],
      },
    },
  },
  'burst-0',
);

describe('rendering for bursting', () => {
  it('lists the burst slot after the local hosts, down until it joins, in a flat tree', () => {
    const objects = renderMiniCluster(local, KEYS);
    assert.deepEqual(brokerConfig(objects).bootstrap.hosts, [
      { host: 'burst-local-[0-1]' },
      { host: 'burst-0-[0-3]' },
    ]);
    const script = find.configMap(objects).data?.['entrypoint.sh'] ?? '';
    assert.match(script, /-Stbon\.topo=kary:0\b/);
    assert.match(script, /-Sbroker\.quorum=2\b/);
    const resourceSpec = JSON.parse(find.configMap(objects).data?.R ?? '') as {
      execution: { nodelist: string[] };
    };
    assert.deepEqual(resourceSpec.execution.nodelist, ['burst-local-[0-1],burst-0-[0-3]']);
  });

  it('exposes the lead broker (pod index 0) to the burst clusters through a NodePort Service', () => {
    const services = renderMiniCluster(local, KEYS).filter((object) => object.kind === 'Service');
    assert.deepEqual(
      services.map((service) => service.metadata.name),
      ['burst-local', 'burst-local-lead-broker'],
    );
    const exposed = services[1] as V1Service;
    assert.equal(exposed.spec?.type, 'NodePort');
    assert.deepEqual(exposed.spec?.selector, {
      'app.kubernetes.io/name': 'flux-minicluster',
      'flux-framework.org/minicluster': 'burst-local',
      'batch.kubernetes.io/job-completion-index': '0',
    });
    assert.deepEqual(exposed.spec?.ports, [
      { name: 'flux-broker', port: 8050, targetPort: 8050, protocol: 'TCP' },
    ]);
    const balanced = defaulted(
      {
        ...localSpec,
        flux: { bursting: { clusters: [{ name: 'burst-0', size: 4 }], expose: { type: 'LoadBalancer' } } },
      },
      'burst-local',
    );
    const lb = renderMiniCluster(balanced, KEYS).find(
      (object) => object.metadata.name === 'burst-local-lead-broker',
    ) as V1Service;
    assert.equal(lb.spec?.type, 'LoadBalancer');
    // The external side and plain MiniClusters expose nothing.
    assert.equal(renderMiniCluster(external, KEYS).filter((object) => object.kind === 'Service').length, 1);
  });

  it('renders the external side with the lead under its external address and the same ranks', () => {
    const objects = renderMiniCluster(external, KEYS);
    assert.deepEqual(brokerConfig(objects).bootstrap.hosts, [
      { host: 'burst-local-0', connect: 'tcp://203.0.113.10:30093' },
      { host: 'burst-local-1' },
      { host: 'burst-0-[0-3]' },
    ]);
    assert.deepEqual(brokerHosts(external), brokerHosts(local));
    const script = find.configMap(objects).data?.['entrypoint.sh'] ?? '';
    // Every pod of the external side is a worker: rank 0 runs in the other cluster.
    assert.match(script, /^lead_is_remote=yes$/m);
    assert.deepEqual(
      objects.filter((object) => object.kind === 'Secret'),
      [],
    );
    const resourceSpec = JSON.parse(find.configMap(objects).data?.R ?? '') as {
      execution: { nodelist: string[] };
    };
    assert.deepEqual(decodeHostlist(resourceSpec.execution.nodelist.join(',')), brokerHosts(local));
  });

  it("renders a connected MiniCluster as the tail of the first one's host list", () => {
    const first = defaulted(
      {
        size: 2,
        interactive: true,
        flux: { bursting: { clusters: [{ name: 'second', size: 2 }] } },
        network: { headlessName: 'shared', sharedSelector: { 'flux-framework.org/connected': 'pair' } },
      },
      'first',
    );
    const second = defaulted(
      {
        size: 2,
        interactive: true,
        flux: { bootServer: 'first', bootServerSize: 2 },
        network: { headlessName: 'shared', sharedSelector: { 'flux-framework.org/connected': 'pair' } },
      },
      'second',
    );
    assert.deepEqual(brokerHosts(second), brokerHosts(first));
    assert.deepEqual(brokerHosts(first), ['first-0', 'first-1', 'second-0', 'second-1']);
    // One Service for both (two controllers cannot own one object): the first's, selecting both.
    const service = renderMiniCluster(first, KEYS).find(
      (object) => object.metadata.name === 'shared',
    ) as V1Service;
    assert.equal(service.kind, 'Service');
    assert.deepEqual(service.spec?.selector, { 'flux-framework.org/connected': 'pair' });
    assert.equal(
      renderMiniCluster(second, KEYS).filter(
        (object) => object.kind === 'Service' && object.metadata.name === 'shared',
      ).length,
      0,
    );
    assert.equal(find.job(renderMiniCluster(second, KEYS)).spec?.template.spec?.subdomain, 'shared');
    // Both sides compute the same (flat) tree, and the second's pods are all workers.
    for (const side of [first, second]) {
      assert.match(
        find.configMap(renderMiniCluster(side, KEYS)).data?.['entrypoint.sh'] ?? '',
        /-Stbon\.topo=kary:0\b/,
      );
    }
    assert.match(
      find.configMap(renderMiniCluster(second, KEYS)).data?.['entrypoint.sh'] ?? '',
      /^lead_is_remote=yes$/m,
    );
    assert.equal(
      find.job(renderMiniCluster(second, KEYS)).spec?.template.metadata?.labels?.[
        'flux-framework.org/connected'
      ],
      'pair',
    );
  });
});
