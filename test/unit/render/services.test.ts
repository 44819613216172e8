// v1alpha1 `spec.services`: one Deployment of one pod, on the MiniCluster's network, never a broker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import { renderMiniCluster } from '../../../src/render/index.ts';
import type { KubeObject } from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted, find } from './fixtures.ts';

function deployment(objects: KubeObject[]): V1Deployment {
  const found = objects.filter((object) => object.kind === 'Deployment');
  assert.equal(found.length, 1, 'one Deployment');
  return found[0] as V1Deployment;
}

const NETWORK_LABELS = {
  'app.kubernetes.io/name': 'flux-minicluster',
  'flux-framework.org/minicluster': 'flux-sample',
};

describe('spec.services', () => {
  it('renders no Deployment without services', () => {
    const objects = renderMiniCluster(defaulted({ size: 2 }), KEYS);
    assert.equal(objects.filter((object) => object.kind === 'Deployment').length, 0);
  });

  it('renders one Deployment `<name>-services` before the Job, its pod named on the headless Service', () => {
    const objects = renderMiniCluster(
      defaulted({
        size: 2,
        services: [
          {
            name: 'web',
            image: 'localhost/flux:0.88.0',
            command: 'python3 -m http.server 8080',
            ports: [8080],
            environment: { B: '2', A: '1' },
            existingVolumes: {
              conf: {
                configMapName: 'nginx-conf',
                path: '/etc/nginx/conf.d',
                items: { 'flux.conf': 'flux.conf' },
              },
            },
          },
          { name: 'db', image: 'mongo', secrets: { PASSWORD: { name: 'db', key: 'password' } } },
        ],
      }),
      KEYS,
      {
        owner: {
          apiVersion: 'flux-framework.org/v1alpha1',
          kind: 'MiniCluster',
          name: 'flux-sample',
          uid: 'u1',
        },
      },
    );
    assert.deepEqual(
      objects.map((object) => `${object.kind}/${object.metadata.name}`),
      [
        'ConfigMap/flux-sample-flux-config',
        'Secret/flux-sample-curve-cert',
        'Secret/flux-sample-munge-key',
        'Service/flux-sample',
        'Deployment/flux-sample-services',
        'Job/flux-sample',
      ],
    );
    const labels = {
      ...NETWORK_LABELS,
      'app.kubernetes.io/instance': 'flux-sample',
      'app.kubernetes.io/component': 'services',
      'app.kubernetes.io/managed-by': 'flux-operator',
    };
    assert.deepEqual(deployment(objects), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'flux-sample-services',
        namespace: 'default',
        labels,
        ownerReferences: [
          {
            apiVersion: 'flux-framework.org/v1alpha1',
            kind: 'MiniCluster',
            name: 'flux-sample',
            uid: 'u1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        replicas: 1,
        strategy: { type: 'Recreate' },
        selector: {
          matchLabels: { ...NETWORK_LABELS, 'app.kubernetes.io/component': 'services' },
        },
        template: {
          metadata: { labels },
          spec: {
            hostname: 'flux-sample-services',
            subdomain: 'flux-sample',
            setHostnameAsFQDN: false,
            enableServiceLinks: false,
            containers: [
              {
                name: 'web',
                image: 'localhost/flux:0.88.0',
                imagePullPolicy: 'IfNotPresent',
                command: ['/bin/sh', '-c', 'python3 -m http.server 8080'],
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', value: '2' },
                ],
                ports: [{ containerPort: 8080, protocol: 'TCP' }],
                volumeMounts: [{ name: 'conf', mountPath: '/etc/nginx/conf.d', readOnly: false }],
              },
              {
                name: 'db',
                image: 'mongo',
                imagePullPolicy: 'IfNotPresent',
                env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
              },
            ],
            volumes: [
              {
                name: 'conf',
                configMap: { name: 'nginx-conf', items: [{ key: 'flux.conf', path: 'flux.conf' }] },
              },
            ],
            // No ServiceAccount token: the spec does not ask for one.
            automountServiceAccountToken: false,
          },
        },
      },
    });
  });

  it('keeps the services pod on the network of the headless Service, out of everything that counts brokers', () => {
    const objects = renderMiniCluster(
      defaulted({ size: 2, services: [{ name: 'web', image: IMAGE }] }),
      KEYS,
    );
    const selector = find.service(objects).spec?.selector ?? {};
    const podLabels = deployment(objects).spec?.template.metadata?.labels ?? {};
    const brokerLabels = find.job(objects).spec?.template.metadata?.labels ?? {};
    for (const [key, value] of Object.entries(selector)) {
      assert.equal(podLabels[key], value, `the services pod matches the Service selector on ${key}`);
      assert.equal(brokerLabels[key], value, `the brokers match the Service selector on ${key}`);
    }
    assert.equal(podLabels['app.kubernetes.io/component'], 'services');
    assert.equal(brokerLabels['app.kubernetes.io/component'], 'broker');
  });

  it('joins a shared selector, takes the pod labels, annotations and placement, and mounts a volume once', () => {
    const objects = renderMiniCluster(
      defaulted({
        network: { headlessName: 'net', sharedSelector: { group: 'a' } },
        pod: {
          labels: { team: 'x' },
          annotations: { note: 'y' },
          serviceAccountName: 'sa',
          nodeSelector: { zone: 'z' },
          tolerations: [{ key: 'k', operator: 'Exists' }],
          resources: { cpu: '2' },
        },
        services: [
          {
            name: 'a',
            image: IMAGE,
            pullAlways: true,
            imagePullSecret: 'pull',
            volumes: { d: { path: '/d', emptyDir: true } },
          },
          {
            name: 'b',
            image: IMAGE,
            imagePullSecret: 'pull',
            volumes: { d: { path: '/e', emptyDir: true } },
          },
        ],
      }),
      KEYS,
    );
    const template = deployment(objects).spec?.template;
    assert.deepEqual(template?.metadata, {
      labels: {
        team: 'x',
        group: 'a',
        ...NETWORK_LABELS,
        'app.kubernetes.io/instance': 'flux-sample',
        'app.kubernetes.io/component': 'services',
        'app.kubernetes.io/managed-by': 'flux-operator',
      },
      annotations: { note: 'y' },
    });
    const pod = template?.spec;
    assert.equal(pod?.subdomain, 'net');
    assert.equal(pod?.hostname, 'flux-sample-services');
    assert.equal(pod?.serviceAccountName, 'sa');
    assert.deepEqual(pod?.nodeSelector, { zone: 'z' });
    assert.deepEqual(pod?.tolerations, [{ key: 'k', operator: 'Exists' }]);
    // Pod-level resources size the brokers; the services set their own.
    assert.equal(pod?.resources, undefined);
    assert.deepEqual(pod?.imagePullSecrets, [{ name: 'pull' }]);
    assert.deepEqual(pod?.volumes, [{ name: 'd', emptyDir: {} }]);
    assert.equal(pod?.containers[0]?.imagePullPolicy, 'Always');
    assert.deepEqual(
      pod?.containers.map((container) => container.volumeMounts),
      [[{ name: 'd', mountPath: '/d', readOnly: false }], [{ name: 'd', mountPath: '/e', readOnly: false }]],
    );
  });

  it("keeps v1alpha1's Service name `flux-service` when a container addresses the services by it", () => {
    const address = 'flux-sample-services.flux-service.default.svc.cluster.local';
    const cases: [Parameters<typeof defaulted>[0], string][] = [
      [
        { containers: [{ image: IMAGE, command: 'hostname', environment: { REGISTRY: address } }] },
        'flux-service',
      ],
      [{ containers: [{ image: IMAGE, command: `curl -s ${address}` }] }, 'flux-service'],
      [
        {
          containers: [
            { image: IMAGE, command: 'hostname', commands: { brokerPre: `oras push ${address}:5000/x` } },
          ],
        },
        'flux-service',
      ],
      [
        { containers: [{ image: IMAGE, command: 'curl -s flux-sample-services.flux-sample' }] },
        'flux-sample',
      ],
      [
        { containers: [{ image: IMAGE, command: `curl ${address}` }], network: { headlessName: 'own' } },
        'own',
      ],
    ];
    for (const [spec, service] of cases) {
      const objects = renderMiniCluster(
        defaulted({ ...spec, services: [{ name: 'web', image: IMAGE }] }),
        KEYS,
      );
      assert.equal(find.service(objects).metadata?.name, service, JSON.stringify(spec));
      assert.equal(deployment(objects).spec?.template.spec?.subdomain, service);
      assert.equal(find.job(objects).spec?.template.spec?.subdomain, service);
    }
    // Without services too: dropping them must not rename the Service (the Job's pods keep it).
    const objects = renderMiniCluster(
      defaulted({ containers: [{ image: IMAGE, command: `curl ${address}` }] }),
      KEYS,
    );
    assert.equal(find.service(objects).metadata?.name, 'flux-service');
  });

  it('hashes a host name that would pass 63 characters, so it stays a DNS label', () => {
    const name = `m${'x'.repeat(60)}`;
    const objects = renderMiniCluster(defaulted({ services: [{ name: 'web', image: IMAGE }] }, name), KEYS);
    const host = deployment(objects).spec?.template.spec?.hostname ?? '';
    assert.ok(host.length <= 63, host);
    assert.match(host, /^mx+-[0-9a-f]{8}$/);
    assert.equal(deployment(objects).metadata?.name, host);
  });
});
