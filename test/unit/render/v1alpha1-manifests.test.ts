// What settings of Flux Operator v1alpha1 manifests need from render to run as they did there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MiniClusterV1alpha1Spec } from '../../../src/api/index.ts';
import { entrypointInput } from '../../../src/render/flux-inputs.ts';
import { miniClusterNames, renderMiniCluster } from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted, find } from './fixtures.ts';

function inputOf(spec: Partial<MiniClusterV1alpha1Spec>) {
  const miniCluster = defaulted(spec);
  return entrypointInput(miniCluster, miniClusterNames(miniCluster));
}

/** The Go operator's places, as v1alpha1 manifests with their own broker.toml name them. */
const BROKER_CONFIG = [
  '[resource]',
  'path = "/etc/flux/system/R"',
  '',
  '[bootstrap]',
  'curve_cert = "/etc/curve/curve.cert"',
  'default_port = 8050',
  'default_bind = "tcp://eth0:%p"',
  'default_connect = "tcp://%h.flux-service.default.svc.cluster.local:%p"',
  'hosts = [{host="flux-sample-[0-1]"}]',
  '',
].join('\n');

describe('logging.quiet', () => {
  it('keeps the brokers to errors: their info lines are not the job output (Go quiet printed none)', () => {
    const cases: [Partial<MiniClusterV1alpha1Spec>, number][] = [
      [{ logging: { quiet: true } }, 3],
      [{ logging: { quiet: true }, flux: { logLevel: 7 } }, 3],
      [{ logging: { quiet: true }, flux: { logLevel: 0 } }, 0],
      [{}, 6],
      [{ flux: { logLevel: 7 } }, 7],
    ];
    for (const [spec, level] of cases) {
      assert.equal(inputOf(spec).broker.logLevel, level, JSON.stringify(spec));
    }
    const script =
      find.configMap(renderMiniCluster(defaulted({ logging: { quiet: true } }), KEYS)).data?.[
        'entrypoint.sh'
      ] ?? '';
    assert.match(script, /^start_args=\(.* -Slog-stderr-level=3 /m);
  });
});

describe('an own broker.toml (flux.brokerConfig)', () => {
  it('gets the certificate and R where it says, and pods under the Service it connects through', () => {
    const miniCluster = defaulted({ size: 2, flux: { brokerConfig: BROKER_CONFIG } });
    const input = entrypointInput(miniCluster, miniClusterNames(miniCluster));
    assert.equal(input.paths.curveCertPath, '/etc/curve/curve.cert');
    assert.equal(input.paths.resourcePath, '/etc/flux/system/R');
    assert.deepEqual(input.resource, { writtenBy: 'pod', hostlist: 'flux-sample-[0-1]' });
    const objects = renderMiniCluster(miniCluster, KEYS);
    assert.equal(find.configMap(objects).data?.['broker.toml'], BROKER_CONFIG);
    assert.equal(find.service(objects).metadata?.name, 'flux-service');
    assert.equal(find.job(objects).spec?.template.spec?.subdomain, 'flux-service');
  });

  it('has the pod write R at its path even when the cores are known', () => {
    const miniCluster = defaulted({
      size: 2,
      containers: [{ image: IMAGE, command: 'hostname', cores: 2 }],
      flux: { brokerConfig: BROKER_CONFIG },
    });
    const input = entrypointInput(miniCluster, miniClusterNames(miniCluster));
    assert.equal(input.paths.resourcePath, '/etc/flux/system/R');
    assert.deepEqual(input.resource, { writtenBy: 'pod', hostlist: 'flux-sample-[0-1]' });
    assert.equal(find.configMap(renderMiniCluster(miniCluster, KEYS)).data?.R, undefined);
  });

  it('leaves the operator its own places without one', () => {
    const input = inputOf({ size: 2 });
    assert.equal(input.paths.curveCertPath, '/mnt/flux/curve/curve.cert');
    assert.equal(input.paths.resourcePath, '/mnt/flux/R');
    const withCores = inputOf({ size: 2, containers: [{ image: IMAGE, command: 'hostname', cores: 2 }] });
    assert.equal(withCores.paths.resourcePath, '/flux_operator/R');
    assert.deepEqual(withCores.resource, { writtenBy: 'operator' });
  });
});
