import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'smol-toml';
import {
  brokerConfigToml,
  brokerHostlist,
  burstClusterHostEntries,
  expandBrokerHosts,
  miniClusterHostEntries,
} from '../../../src/flux/broker-config.ts';
import type { BrokerConfigInput, BurstClusterHostsInput } from '../../../src/flux/broker-config.ts';
import { encodeHostlist, indexedHostNames } from '../../../src/flux/hostlist.ts';

/** A lead of two pods and one burst slot of two pods; tests override what they are about. */
const BURST_LAYOUT: BurstClusterHostsInput = {
  lead: { name: 'flux-sample', maxSize: 2 },
  leadAlias: 'lead',
  leadAddress: '10.0.0.1',
  leadPort: 8050,
  burstSlots: [{ name: 'burst-0', size: 2 }],
  ownSlot: 'burst-0',
};

/** TOML parsed back into plain objects (smol-toml builds null-prototype ones). */
function parseToml(text: string): unknown {
  return JSON.parse(JSON.stringify(parse(text)));
}

/** A plain MiniCluster's input; `overrides` replace whole fields. */
function input(overrides: Partial<BrokerConfigInput> = {}): BrokerConfigInput {
  return {
    curveCertPath: '/etc/flux/system/curve.cert',
    hosts: miniClusterHostEntries({ name: 'flux-sample', maxSize: 4 }),
    serviceName: 'flux-sample',
    namespace: 'default',
    resource: { path: '/etc/flux/system/R' },
    ...overrides,
  };
}

describe('brokerConfigToml', () => {
  it('writes the exact broker.toml of a plain MiniCluster', () => {
    assert.equal(
      brokerConfigToml(input()),
      [
        '[bootstrap]',
        'curve_cert = "/etc/flux/system/curve.cert"',
        'default_port = 8050',
        'default_bind = "tcp://eth0:%p"',
        'default_connect = "tcp://%h.flux-sample.default.svc.cluster.local:%p"',
        '',
        '[[bootstrap.hosts]]',
        'host = "flux-sample-[0-3]"',
        '',
        '[resource]',
        'path = "/etc/flux/system/R"',
        '',
      ].join('\n'),
    );
  });

  it('parses back to exactly the keys Flux knows, with every optional table', () => {
    const text = brokerConfigToml(
      input({
        hosts: miniClusterHostEntries({
          name: 'flux-sample',
          maxSize: 2,
          burstSlots: [{ name: 'burst-0', size: 2 }],
        }),
        namespace: 'hpc',
        clusterDomain: 'example.org',
        defaultPort: 9000,
        defaultBind: 'tcp://*:%p',
        resource: { path: '/r/R', noverify: true },
        exec: { imp: '/usr/libexec/flux/flux-imp' },
        access: { allowGuestUser: true, allowRootOwner: false },
        archive: { dbpath: '/var/lib/flux/job-archive.sqlite', period: '1m', busytimeout: '50s' },
        queuePolicy: 'easy',
      }),
    );
    assert.deepEqual(parseToml(text), {
      bootstrap: {
        curve_cert: '/etc/flux/system/curve.cert',
        default_port: 9000,
        default_bind: 'tcp://*:%p',
        default_connect: 'tcp://%h.flux-sample.hpc.svc.example.org:%p',
        hosts: [{ host: 'flux-sample-[0-1]' }, { host: 'burst-0-[0-1]' }],
      },
      resource: { path: '/r/R', noverify: true },
      exec: { imp: '/usr/libexec/flux/flux-imp' },
      access: { 'allow-guest-user': true, 'allow-root-owner': false },
      archive: { dbpath: '/var/lib/flux/job-archive.sqlite', period: '1m', busytimeout: '50s' },
      'sched-fluxion-qmanager': { 'queue-policy': 'easy' },
    });
  });

  it('writes per-host bind and connect overrides, and only those', () => {
    const hosts = [
      { connect: 'tcp://10.0.0.5:30050', host: 'lead-broker', bind: 'tcp://eth0:8050' },
      { host: 'w-1' },
    ];
    const parsed = parseToml(brokerConfigToml(input({ hosts }))) as { bootstrap: { hosts: unknown } };
    assert.deepEqual(parsed.bootstrap.hosts, [
      { host: 'lead-broker', bind: 'tcp://eth0:8050', connect: 'tcp://10.0.0.5:30050' },
      { host: 'w-1' },
    ]);
    // Fixed key order whatever order the caller used.
    assert.match(brokerConfigToml(input({ hosts })), /host = "lead-broker"\nbind = .*\nconnect = /);
  });

  it('is deterministic', () => {
    assert.equal(brokerConfigToml(input()), brokerConfigToml(input()));
  });

  it('rejects configurations Flux would not boot', () => {
    assert.throws(() => brokerConfigToml(input({ hosts: [] })), /at least the lead broker/);
    assert.throws(
      () => brokerConfigToml(input({ hosts: [{ host: 'a-[0-1]' }, { host: 'a-1' }] })),
      /"a-1" is listed twice/,
    );
    assert.throws(() => brokerConfigToml(input({ hosts: [{ host: 'a-[0-' }] })), /unclosed/);
    assert.throws(() => brokerConfigToml(input({ defaultPort: 70000 })), /not a TCP port/);
    assert.throws(() => brokerConfigToml(input({ curveCertPath: ' ' })), /curveCertPath must not be empty/);
  });
});

describe('host entries', () => {
  it('lists a MiniCluster up to its maximum size, then its burst slots in declared order', () => {
    assert.deepEqual(miniClusterHostEntries({ name: 'flux-sample', maxSize: 1 }), [
      { host: 'flux-sample-0' },
    ]);
    assert.deepEqual(
      miniClusterHostEntries({
        name: 'flux-sample',
        maxSize: 4,
        burstSlots: [
          { name: 'burst-b', size: 3 },
          { name: 'burst-a', size: 1 },
        ],
      }),
      [{ host: 'flux-sample-[0-3]' }, { host: 'burst-b-[0-2]' }, { host: 'burst-a-0' }],
    );
  });

  it('gives the burst side the lead under an alias, then the same ranks as the lead side', () => {
    const slots = [
      { name: 'burst-0', size: 2 },
      { name: 'burst-1', size: 3 },
    ];
    const external = burstClusterHostEntries({
      lead: { name: 'flux-sample', maxSize: 2 },
      leadAlias: 'lead-broker.example.com',
      leadAddress: '203.0.113.7',
      leadPort: 30050,
      burstSlots: slots,
      ownSlot: 'burst-0',
    });
    assert.deepEqual(external, [
      { host: 'lead-broker.example.com', connect: 'tcp://203.0.113.7:30050' },
      { host: 'flux-sample-1' },
      { host: 'burst-0-[0-1]' },
      { host: 'burst-1-[0-2]' },
    ]);
    const local = miniClusterHostEntries({ name: 'flux-sample', maxSize: 2, burstSlots: slots });
    const localRanks = expandBrokerHosts(local);
    const externalRanks = expandBrokerHosts(external);
    assert.equal(externalRanks.length, localRanks.length);
    assert.deepEqual(externalRanks.slice(1), localRanks.slice(1));
    assert.equal(
      brokerHostlist(external),
      'lead-broker.example.com,flux-sample-1,burst-0-[0-1],burst-1-[0-2]',
    );
  });

  it('reproduces the verified loopback layout of design §3', () => {
    const external = burstClusterHostEntries({
      lead: { name: 'flux-sample', maxSize: 2 },
      leadAlias: 'lead-broker.example.com',
      leadAddress: '127.0.0.1',
      leadPort: 8050,
      leadBind: 'tcp://lo:%p',
      burstSlots: [{ name: 'burst-0', size: 2 }],
      ownSlot: 'burst-0',
    });
    assert.deepEqual(external, [
      { host: 'lead-broker.example.com', bind: 'tcp://lo:%p', connect: 'tcp://127.0.0.1:8050' },
      { host: 'flux-sample-1' },
      { host: 'burst-0-[0-1]' },
    ]);
  });

  it('brackets IPv6 lead addresses and skips the worker entry of a one-pod lead', () => {
    const external = burstClusterHostEntries({
      ...BURST_LAYOUT,
      lead: { name: 'flux-sample', maxSize: 1 },
      leadAddress: '2001:db8::1',
      burstSlots: [{ name: 'burst-0', size: 1 }],
    });
    assert.deepEqual(external, [
      { host: 'lead', connect: 'tcp://[2001:db8::1]:8050' },
      { host: 'burst-0-0' },
    ]);
  });

  it('rejects inconsistent burst layouts', () => {
    const base = BURST_LAYOUT;
    assert.throws(
      () => burstClusterHostEntries({ ...base, ownSlot: 'burst-9' }),
      /not among the declared burst slots/,
    );
    assert.throws(
      () => burstClusterHostEntries({ ...base, leadAlias: 'burst-0-1' }),
      /"burst-0-1" is listed twice/,
    );
    assert.throws(() => burstClusterHostEntries({ ...base, leadPort: 0 }), /not a TCP port/);
    assert.throws(() => miniClusterHostEntries({ name: 'Flux_Sample', maxSize: 2 }), /not a DNS label/);
    assert.throws(
      () => miniClusterHostEntries({ name: 'a'.repeat(62), maxSize: 11 }),
      /at most 63 characters/,
    );
    assert.throws(
      () => miniClusterHostEntries({ name: 'ok', maxSize: 0 }),
      /maxSize must be an integer >= 1/,
    );
  });
});

describe('the host entries of indexed pods', () => {
  it('are what the general hostlist encoder makes of the same host names', () => {
    for (const name of ['flux-sample', 'mc-12', 'a1', 'x', 'n0-7']) {
      for (const maxSize of [1, 2, 8, 10, 100]) {
        const names = indexedHostNames(name, maxSize);
        assert.deepEqual(miniClusterHostEntries({ name, maxSize }), [{ host: encodeHostlist(names) }]);
        assert.deepEqual(expandBrokerHosts(miniClusterHostEntries({ name, maxSize })), names);
      }
    }
    const burst = burstClusterHostEntries({ ...BURST_LAYOUT, lead: { name: 'mc-12', maxSize: 11 } });
    assert.equal(burst[1]?.host, encodeHostlist(indexedHostNames('mc-12', 10, 1)));
  });
});
