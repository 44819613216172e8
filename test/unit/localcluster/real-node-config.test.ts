// The real node's generated configuration (parsed back) and the netfilter undo it relies on to leave
// the machine as it found it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import {
  CLUSTER_DNS_IP,
  NODE_IP,
  clusterDnsObjects,
  cniConfig,
  containerdConfig,
  corefile,
  kubeProxyConfig,
  kubeletConfig,
  realNodeLayout,
  realNodePaths,
} from '../../../workbench/src/localcluster/real-node/config.ts';
import {
  iptablesUndo,
  parseTableSave,
  splitRule,
} from '../../../workbench/src/localcluster/real-node/host.ts';

const paths = realNodePaths(realNodeLayout('/p/.cluster'));

test('everything of the node lives in its own folders', () => {
  assert.deepEqual(realNodeLayout('/p/.cluster'), {
    varDir: '/var/lib/flux-operator/real-0',
    runDir: '/run/flux-operator/real-0',
    configDir: '/p/.cluster/real-0',
  });
  for (const [name, value] of Object.entries(paths)) {
    assert.ok(
      ['/var/lib/flux-operator/real-0/', '/run/flux-operator/real-0/', '/p/.cluster/real-0/'].some((dir) =>
        value.startsWith(dir),
      ),
      `${name}: ${value}`,
    );
  }
});

test('containerd: the CRI settings this sandbox needs, its own root, state and socket', () => {
  // A plain copy: the TOML parser makes objects without a prototype.
  const config = JSON.parse(
    JSON.stringify(parseToml(containerdConfig(paths, 'localhost/pause:v1.35.4'))),
  ) as {
    version: number;
    root: string;
    state: string;
    grpc: unknown;
    disabled_plugins: string[];
    plugins: Record<string, unknown>;
  };
  assert.equal(config.version, 2);
  assert.equal(config.root, '/var/lib/flux-operator/real-0/containerd');
  assert.equal(config.state, '/run/flux-operator/real-0/containerd');
  assert.deepEqual(config.grpc, { address: '/run/flux-operator/real-0/containerd.sock' });
  const cri = config.plugins['io.containerd.grpc.v1.cri'];
  assert.deepEqual(cri, {
    sandbox_image: 'localhost/pause:v1.35.4',
    restrict_oom_score_adj: true,
    disable_apparmor: true,
    enable_selinux: false,
    containerd: {
      snapshotter: 'overlayfs',
      default_runtime_name: 'runc',
      runtimes: { runc: { runtime_type: 'io.containerd.runc.v2', options: { SystemdCgroup: false } } },
    },
    cni: { bin_dir: '/usr/lib/cni', conf_dir: '/p/.cluster/real-0/net.d', max_conf_num: 1 },
  });
  assert.ok(config.disabled_plugins.includes('io.containerd.internal.v1.opt'));
});

test('CNI: a bridge of its own whose gateway is the node address, leases in the node folder', () => {
  const conflist = JSON.parse(cniConfig(paths)) as { plugins: Record<string, unknown>[] };
  assert.deepEqual(conflist.plugins[0], {
    type: 'bridge',
    bridge: 'fo-cni0',
    isGateway: true,
    ipMasq: true,
    hairpinMode: true,
    ipam: {
      type: 'host-local',
      dataDir: '/var/lib/flux-operator/real-0/cni-leases',
      ranges: [[{ subnet: '10.244.200.0/24', gateway: NODE_IP }]],
      routes: [{ dst: '0.0.0.0/0' }],
    },
  });
  assert.deepEqual(conflist.plugins[1], { type: 'portmap', capabilities: { portMappings: true } });
});

test('kubelet: cgroup v1 allowed, cluster DNS, webhook auth with the cluster CA, no image GC', () => {
  const config = parseYaml(kubeletConfig(paths, '/p/ca.crt')) as Record<string, unknown>;
  assert.equal(config.kind, 'KubeletConfiguration');
  assert.equal(config.failCgroupV1, false);
  assert.equal(config.cgroupDriver, 'cgroupfs');
  assert.equal(config.containerRuntimeEndpoint, 'unix:///run/flux-operator/real-0/containerd.sock');
  assert.equal(config.address, NODE_IP);
  assert.deepEqual(config.clusterDNS, [CLUSTER_DNS_IP]);
  assert.deepEqual(config.authentication, {
    anonymous: { enabled: false },
    webhook: { enabled: true },
    x509: { clientCAFile: '/p/ca.crt' },
  });
  assert.deepEqual(config.authorization, { mode: 'Webhook' });
  assert.equal(config.imageGCHighThresholdPercent, 100);
  assert.equal(config.resolvConf, '/p/.cluster/real-0/resolv.conf');
});

test('kube-proxy: iptables mode, NodePorts on the node address only, host conntrack left alone', () => {
  const config = parseYaml(kubeProxyConfig(paths)) as Record<string, unknown>;
  assert.equal(config.mode, 'iptables');
  assert.equal(config.hostnameOverride, 'real-0');
  assert.deepEqual(config.nodePortAddresses, ['10.244.200.1/32']);
  assert.deepEqual(config.conntrack, {
    maxPerCore: 0,
    min: 0,
    tcpEstablishedTimeout: '0s',
    tcpCloseWaitTimeout: '0s',
  });
  assert.deepEqual(config.clientConnection, { kubeconfig: '/p/.cluster/real-0/kubeconfig' });
});

test('CoreDNS answers the cluster domain on the node address; kube-dns points at it', () => {
  assert.equal(
    corefile('/k'),
    '.:53 {\n    bind 10.244.200.1\n    errors\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n' +
      '        kubeconfig /k\n        pods insecure\n        fallthrough in-addr.arpa ip6.arpa\n    }\n}\n',
  );
  const [service, slice] = clusterDnsObjects() as [
    { spec: { clusterIP: string; selector?: unknown } },
    { endpoints: { addresses: string[] }[]; metadata: { labels: Record<string, string> } },
  ];
  assert.equal(service.spec.clusterIP, '10.0.0.10');
  assert.equal(service.spec.selector, undefined);
  assert.deepEqual(slice.endpoints[0]?.addresses, [NODE_IP]);
  assert.equal(slice.metadata.labels['kubernetes.io/service-name'], 'kube-dns');
});

const BEFORE = `# Generated by iptables-nft-save v1.8.9 (nf_tables) on Tue Nov 24 10:00:00 2026
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:MINE - [0:0]
-A INPUT -j MINE
COMMIT
`;

const AFTER = `# Generated by iptables-nft-save v1.8.9 (nf_tables) on Tue Nov 24 11:00:00 2026
*filter
:INPUT ACCEPT [10:200]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-FIREWALL - [0:0]
:MINE - [0:0]
-A INPUT -j MINE
-A INPUT -j KUBE-FIREWALL
-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -j DROP
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:CNI-1a2b - [0:0]
-A POSTROUTING -s 10.244.200.5/32 -m comment --comment "name: \\"flux\\" id: \\"abc\\"" -j CNI-1a2b
COMMIT
`;

test('iptables-save text is read per table: chains and rules, counters ignored', () => {
  const tables = parseTableSave(AFTER);
  assert.deepEqual([...tables.keys()], ['filter', 'nat']);
  assert.deepEqual(
    [...(tables.get('filter')?.chains ?? [])],
    ['INPUT', 'FORWARD', 'OUTPUT', 'KUBE-FIREWALL', 'MINE'],
  );
  assert.equal(tables.get('filter')?.rules.length, 3);
});

test('the undo deletes added rules, then flushes and removes added chains; what was there stays', () => {
  assert.deepEqual(iptablesUndo(BEFORE, AFTER), [
    ['-t', 'filter', '-D', 'INPUT', '-j', 'KUBE-FIREWALL'],
    [
      '-t',
      'filter',
      '-D',
      'KUBE-FIREWALL',
      '!',
      '-s',
      '127.0.0.0/8',
      '-d',
      '127.0.0.0/8',
      '-m',
      'comment',
      '--comment',
      'block incoming localnet connections',
      '-j',
      'DROP',
    ],
    [
      '-t',
      'nat',
      '-D',
      'POSTROUTING',
      '-s',
      '10.244.200.5/32',
      '-m',
      'comment',
      '--comment',
      'name: "flux" id: "abc"',
      '-j',
      'CNI-1a2b',
    ],
    ['-t', 'filter', '-F', 'KUBE-FIREWALL'],
    ['-t', 'nat', '-F', 'CNI-1a2b'],
    ['-t', 'filter', '-X', 'KUBE-FIREWALL'],
    ['-t', 'nat', '-X', 'CNI-1a2b'],
  ]);
  assert.deepEqual(iptablesUndo(AFTER, AFTER), []);
});

test('rule words keep quoted comments whole and unescape them', () => {
  assert.deepEqual(splitRule('A -m comment --comment "a \\"b\\" c" -j X'), [
    'A',
    '-m',
    'comment',
    '--comment',
    'a "b" c',
    '-j',
    'X',
  ]);
});
