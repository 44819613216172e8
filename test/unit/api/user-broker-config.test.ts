import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDefaultsV1alpha1 } from '../../../src/api/v1alpha1/defaults.ts';
import { userBrokerConfigFacts } from '../../../src/api/shared/user-broker-config.ts';
import { fluxContainer } from './fixtures.ts';

/** A broker.toml in the shape Flux Operator v1alpha1 manifests carry (the Go operator's places). */
const V1ALPHA1_STYLE = [
  '[resource]',
  'path = "/etc/flux/system/R"',
  '',
  '[bootstrap]',
  'curve_cert = "/etc/curve/curve.cert"',
  'default_port = 8050',
  'default_bind = "tcp://eth0:%p"',
  'default_connect = "tcp://%h.flux-service.flux-operator.svc.cluster.local:%p"',
  'hosts = [{host="flux-sample-0", connect="tcp://flux-sample-0.other.flux-operator.svc.cluster.local:8050"}, {host="flux-sample-[1-3]"}]',
].join('\n');

describe('userBrokerConfigFacts', () => {
  const cases: [string, string, ReturnType<typeof userBrokerConfigFacts>][] = [
    [
      'the places and the Service of a v1alpha1-style config (default_connect before the hosts)',
      V1ALPHA1_STYLE,
      {
        curveCertPath: '/etc/curve/curve.cert',
        resourcePath: '/etc/flux/system/R',
        serviceName: 'flux-service',
      },
    ],
    [
      "a host's connect URI when default_connect names no Service",
      [
        '[bootstrap]',
        'default_connect = "tcp://%h:%p"',
        'hosts = [{host="a-0", connect="tcp://a-0.svc-a.ns.svc:8050"}, {host="a-1"}]',
      ].join('\n'),
      { serviceName: 'svc-a' },
    ],
    [
      'nothing from relative paths or addresses that are not Service DNS names',
      [
        '[resource]',
        'path = "R"',
        '[bootstrap]',
        'curve_cert = "curve.cert"',
        'default_connect = "tcp://10.0.0.1:%p"',
      ].join('\n'),
      {},
    ],
    ['nothing from text that is not TOML', '[bootstrap\ncurve_cert = ', {}],
    ['nothing from a config without those tables', '[exec]\nimp = "/usr/libexec/flux/flux-imp"\n', {}],
  ];
  for (const [name, text, facts] of cases) {
    it(name, () => {
      assert.deepEqual({ ...userBrokerConfigFacts(text) }, facts);
    });
  }
});

describe('the headless Service of a MiniCluster with its own broker.toml', () => {
  it('defaults to the Service its connect URIs go through, so its brokers find each other', () => {
    const spec = applyDefaultsV1alpha1(
      { containers: [fluxContainer()], flux: { brokerConfig: V1ALPHA1_STYLE } },
      'flux-sample',
    );
    assert.equal(spec.network.headlessName, 'flux-service');
  });

  it('keeps a headlessName that is given, and the name when the config names no Service', () => {
    const given = applyDefaultsV1alpha1(
      {
        containers: [fluxContainer()],
        network: { headlessName: 'mine' },
        flux: { brokerConfig: V1ALPHA1_STYLE },
      },
      'flux-sample',
    );
    assert.equal(given.network.headlessName, 'mine');
    const unnamed = applyDefaultsV1alpha1(
      {
        containers: [fluxContainer()],
        flux: { brokerConfig: '[bootstrap]\ndefault_connect = "tcp://%h:%p"\n' },
      },
      'flux-sample',
    );
    assert.equal(unnamed.network.headlessName, 'flux-sample');
  });
});
