import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { stringify } from 'yaml';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted, find, plain, present } from './fixtures.ts';

describe('renderMiniCluster', () => {
  it('renders config, secrets, service and job in creation order with stable names', () => {
    const objects = renderMiniCluster(defaulted({ size: 4, tasks: 4 }), KEYS);
    assert.deepEqual(
      objects.map((object) => `${object.kind}/${object.metadata.name}`),
      [
        'ConfigMap/flux-sample-flux-config',
        'Secret/flux-sample-curve-cert',
        'Secret/flux-sample-munge-key',
        'Service/flux-sample',
        'Job/flux-sample',
      ],
    );
    for (const object of objects) {
      assert.equal(object.metadata.namespace, 'default');
      assert.deepEqual(object.metadata.labels?.['app.kubernetes.io/instance'], 'flux-sample');
      assert.deepEqual(object.metadata.labels?.['app.kubernetes.io/managed-by'], 'flux-operator');
    }
  });

  it('is a pure function: the same spec and keys give byte-identical YAML', () => {
    const spec = {
      size: 3,
      maxSize: 5,
      containers: [{ image: IMAGE, cores: 2, environment: { B: '2', A: '1' } }],
    };
    const first = stringify(renderMiniCluster(defaulted(spec), KEYS));
    const second = stringify(renderMiniCluster(defaulted(spec), KEYS));
    assert.equal(first, second);
  });

  it('renders the indexed Job that makes a Flux instance', () => {
    const job = find.job(renderMiniCluster(defaulted({ size: 4, deadlineSeconds: 600 }), KEYS));
    const spec = present(job.spec);
    assert.equal(spec.completionMode, 'Indexed');
    assert.equal(spec.completions, 4);
    assert.equal(spec.parallelism, 4);
    assert.equal(spec.backoffLimit, 0);
    assert.equal(spec.activeDeadlineSeconds, 600);
    assert.deepEqual(spec.successPolicy, { rules: [{ succeededIndexes: '0' }] });
    const pod = present(spec.template.spec);
    assert.equal(pod.subdomain, 'flux-sample');
    assert.equal(pod.setHostnameAsFQDN, false);
    assert.equal(pod.restartPolicy, 'Never');
    assert.deepEqual(spec.template.metadata?.labels, {
      'app.kubernetes.io/name': 'flux-minicluster',
      'flux-framework.org/minicluster': 'flux-sample',
      'app.kubernetes.io/instance': 'flux-sample',
      'app.kubernetes.io/component': 'broker',
      'app.kubernetes.io/managed-by': 'flux-operator',
    });
    const [container] = pod.containers;
    assert.deepEqual(container?.command, ['/bin/bash', '/flux_operator/entrypoint.sh']);
    const secretVolumes = (pod.volumes ?? []).filter((volume) => volume.secret);
    assert.deepEqual(
      secretVolumes.map((volume) => [volume.secret?.secretName, volume.secret?.defaultMode]),
      [
        ['flux-sample-curve-cert', 0o400],
        ['flux-sample-munge-key', 0o400],
      ],
    );
    const secretMounts = (container?.volumeMounts ?? []).filter((mount) =>
      mount.mountPath.startsWith('/etc/flux-operator/'),
    );
    assert.deepEqual(
      secretMounts.map((mount) => [mount.mountPath, mount.readOnly]),
      [
        ['/etc/flux-operator/curve', true],
        ['/etc/flux-operator/munge', true],
      ],
    );
  });

  it("selects exactly this MiniCluster's pods with a headless Service that publishes unready pods", () => {
    const service = find.service(renderMiniCluster(defaulted({ size: 2 }), KEYS));
    assert.equal(service.spec?.clusterIP, 'None');
    assert.equal(service.spec?.publishNotReadyAddresses, true);
    assert.deepEqual(service.spec?.selector, {
      'app.kubernetes.io/name': 'flux-minicluster',
      'flux-framework.org/minicluster': 'flux-sample',
    });
  });

  it('keeps secret material out of the ConfigMap and puts it in Secrets only', () => {
    const objects = renderMiniCluster(defaulted({ size: 2 }), KEYS);
    const configText = JSON.stringify(find.configMap(objects));
    assert.ok(!configText.includes('SECRET-KEY-MATERIAL'));
    assert.ok(!configText.includes(Buffer.from(KEYS.mungeKey).toString('base64').slice(0, 40)));
    const curve = find.secret(objects, 'flux-sample-curve-cert');
    assert.equal(
      Buffer.from(curve.data?.['curve.cert'] ?? '', 'base64').toString('utf8'),
      KEYS.curveCertificate,
    );
    assert.equal(curve.immutable, true);
    const munge = find.secret(objects, 'flux-sample-munge-key');
    assert.deepEqual(new Uint8Array(Buffer.from(munge.data?.['munge.key'] ?? '', 'base64')), KEYS.mungeKey);
  });

  it('lists hosts up to maxSize in broker.toml and R, and starts with quorum = size', () => {
    const objects = renderMiniCluster(
      defaulted(
        { size: 2, maxSize: 6, interactive: true, containers: [{ image: IMAGE, cores: 4 }] },
        'elastic',
      ),
      KEYS,
    );
    const data = find.configMap(objects).data ?? {};
    const toml = plain(parseToml(data['broker.toml'] ?? '')) as {
      bootstrap: { hosts: unknown[] };
      resource: unknown;
    };
    assert.deepEqual(toml.bootstrap.hosts, [{ host: 'elastic-[0-5]' }]);
    assert.deepEqual(toml.resource, { path: '/flux_operator/R', noverify: true });
    assert.deepEqual(JSON.parse(data.R ?? ''), {
      version: 1,
      execution: {
        R_lite: [{ rank: '0-5', children: { core: '0-3' } }],
        nodelist: ['elastic-[0-5]'],
        starttime: 0,
        expiration: 0,
      },
    });
    assert.match(data['entrypoint.sh'] ?? '', /-Sbroker\.quorum=2\b/);
    assert.equal(find.job(objects).spec?.parallelism, 2);
  });

  it('writes R in the pod when the cores per pod are unknown', () => {
    const data = find.configMap(renderMiniCluster(defaulted({ size: 3 }), KEYS)).data ?? {};
    assert.equal(data.R, undefined);
    const toml = parseToml(data['broker.toml'] ?? '') as { resource: { path: string } };
    assert.equal(toml.resource.path, '/mnt/flux/R');
    assert.match(data['entrypoint.sh'] ?? '', /R encode "--hosts=\$resource_hostlist" --local/);
    assert.match(data['entrypoint.sh'] ?? '', /resource_hostlist='flux-sample-\[0-2\]'/);
  });

  it('uses user-provided Secrets as they are and generates none of them', () => {
    const objects = renderMiniCluster(
      defaulted({ size: 2, flux: { curveCertSecret: 'my-curve', mungeSecret: 'my-munge' } }),
      KEYS,
    );
    assert.deepEqual(
      objects.filter((object) => object.kind === 'Secret'),
      [],
    );
    const volumes = find.job(objects).spec?.template.spec?.volumes ?? [];
    assert.deepEqual(
      volumes.filter((volume) => volume.secret).map((volume) => volume.secret?.secretName),
      ['my-curve', 'my-munge'],
    );
  });

  it('puts an inline curveCert into the generated Secret, not the ConfigMap', () => {
    const inline = readFileSync(new URL('../../fixtures/keys/curve.cert', import.meta.url), 'utf8');
    const objects = renderMiniCluster(defaulted({ size: 2, flux: { curveCert: inline } }), KEYS);
    const secret = find.secret(objects, 'flux-sample-curve-cert');
    assert.equal(Buffer.from(secret.data?.['curve.cert'] ?? '', 'base64').toString('utf8'), inline);
    assert.ok(!JSON.stringify(find.configMap(objects)).includes('secret-key'));
  });

  it('adds a controller ownerReference to every object when the owner is known', () => {
    const owner = {
      apiVersion: 'flux-framework.org/v1alpha1',
      kind: 'MiniCluster',
      name: 'flux-sample',
      uid: 'uid-1',
    };
    for (const object of renderMiniCluster(defaulted({ size: 1 }), KEYS, { owner })) {
      assert.deepEqual(object.metadata.ownerReferences, [
        { ...owner, controller: true, blockOwnerDeletion: true },
      ]);
    }
  });

  it('renders user containers, volumes and pod settings', () => {
    const job = find.job(
      renderMiniCluster(
        defaulted({
          size: 2,
          jobLabels: { team: 'hpc' },
          pod: {
            labels: { tier: 'compute' },
            annotations: { note: 'x' },
            serviceAccountName: 'runner',
            nodeSelector: { pool: 'big' },
            tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
          },
          containers: [
            {
              image: IMAGE,
              runFlux: true,
              command: 'hostname',
              pullAlways: true,
              imagePullSecret: 'regcred',
              environment: { ZED: 'z', ALPHA: 'a' },
              ports: [9000],
              resources: { limits: { cpu: 2 }, requests: { memory: '1Gi' } },
              workingDir: '/work',
              volumes: { data: { path: '/data', claimName: 'data-pvc', readOnly: true } },
              existingVolumes: { scratch: { path: '/scratch', emptyDir: true } },
              securityContext: { privileged: true, addCapabilities: ['SYS_ADMIN'] },
              lifeCycle: { preStopExec: 'flux shutdown' },
            },
            { name: 'sidecar', image: 'busybox:1.36', command: 'sleep inf', imagePullSecret: 'regcred' },
          ],
        }),
        KEYS,
      ),
    );
    assert.deepEqual(job.metadata?.labels?.team, 'hpc');
    const template = present(job.spec).template;
    assert.equal(template.metadata?.labels?.tier, 'compute');
    assert.deepEqual(template.metadata?.annotations, { note: 'x' });
    const pod = present(template.spec);
    assert.equal(pod.serviceAccountName, 'runner');
    // v1alpha1 asks for the account's token by naming the account.
    assert.equal(pod.automountServiceAccountToken, true);
    assert.deepEqual(pod.nodeSelector, { pool: 'big' });
    assert.deepEqual(pod.tolerations, [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }]);
    assert.deepEqual(pod.imagePullSecrets, [{ name: 'regcred' }]);
    const [flux, sidecar] = pod.containers;
    assert.equal(flux?.imagePullPolicy, 'Always');
    assert.equal(flux?.workingDir, '/work');
    assert.deepEqual(flux?.env, [
      { name: 'ALPHA', value: 'a' },
      { name: 'ZED', value: 'z' },
    ]);
    assert.deepEqual(flux?.ports, [
      { name: 'flux-broker', containerPort: 8050, protocol: 'TCP' },
      { containerPort: 9000, protocol: 'TCP' },
    ]);
    assert.deepEqual(flux?.resources, { limits: { cpu: '2' }, requests: { memory: '1Gi' } });
    assert.deepEqual(flux?.securityContext, { privileged: true, capabilities: { add: ['SYS_ADMIN'] } });
    assert.deepEqual(flux?.lifecycle, { preStop: { exec: { command: ['/bin/sh', '-c', 'flux shutdown'] } } });
    assert.deepEqual(flux?.volumeMounts?.slice(-2), [
      { name: 'data', mountPath: '/data', readOnly: true },
      { name: 'scratch', mountPath: '/scratch', readOnly: false },
    ]);
    assert.deepEqual(pod.volumes?.slice(-2), [
      { name: 'data', persistentVolumeClaim: { claimName: 'data-pvc', readOnly: true } },
      { name: 'scratch', emptyDir: {} },
    ]);
    assert.deepEqual(sidecar?.command, ['/bin/sh', '-c', 'sleep inf']);
    // A v1alpha1 sidecar runs as it is, with the pod's memory-backed /dev/shm only.
    assert.deepEqual(sidecar?.volumeMounts, [{ name: 'flux-operator-shm', mountPath: '/dev/shm' }]);
  });
});
