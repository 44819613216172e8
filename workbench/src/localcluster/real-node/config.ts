/**
 * What the real node of the local cluster is made of, as pure functions of its layout: containerd's
 * config, the CNI network, the kubelet's and kube-proxy's configurations, CoreDNS's Corefile and the
 * cluster-DNS Service. Everything it runs lives under its own folders, bridge and addresses, so that it
 * can be removed without trace (see host.ts) and never meets a kubelet or containerd of the machine.
 */
import path from 'node:path';
import { stringify as toToml } from 'smol-toml';
import { stringify as toYaml } from 'yaml';

/** The kubelet's port, on the node's address: one real node per machine can have it. */
export const KUBELET_PORT = 10250;

export const REAL_NODE_NAME = 'real-0';
/** Label and NoSchedule taint of the real node: only pods that ask for it land there. */
export const REAL_NODE_KEY = 'sim.flux-framework.org/real';
export const REAL_NODE_VALUE = 'true';
/** What a pod needs to land on the real node: its label selected, its taint tolerated. */
export const REAL_NODE_PLACEMENT = {
  nodeSelector: { [REAL_NODE_KEY]: REAL_NODE_VALUE },
  tolerations: [{ key: REAL_NODE_KEY, operator: 'Equal', value: REAL_NODE_VALUE, effect: 'NoSchedule' }],
} as const;
export const CLUSTER_DOMAIN = 'cluster.local';
/** kube-dns's address: the tenth of the API server's Service range (10.0.0.0/24, kwokctl's default). */
export const CLUSTER_DNS_IP = '10.0.0.10';
/** The `kubernetes` Service: the first address of the API server's default service range. */
export const KUBERNETES_SERVICE_IP = '10.0.0.1';
/** The pods' network: a bridge of its own whose gateway address is also the node's address. */
export const BRIDGE_NAME = 'fo-cni0';
export const POD_SUBNET = '10.244.200.0/24';
export const NODE_IP = '10.244.200.1';
/** All pod addresses of the cluster (kwok nodes use 10.244.<i>.0/24): kube-proxy masquerades the rest. */
export const CLUSTER_CIDR = '10.244.0.0/16';
export const CNI_BIN_DIR = '/usr/lib/cni';

export interface RealNodeLayout {
  /** Persistent state: the kubelet's root folder, containerd's root, CNI address leases. */
  varDir: string;
  /** Runtime state: sockets, containerd's state, pid files, saved host settings. */
  runDir: string;
  /** Generated configuration and logs, in the local cluster's state folder. */
  configDir: string;
}

export function realNodeLayout(stateDir: string): RealNodeLayout {
  return {
    varDir: `/var/lib/flux-operator/${REAL_NODE_NAME}`,
    runDir: `/run/flux-operator/${REAL_NODE_NAME}`,
    configDir: path.join(stateDir, REAL_NODE_NAME),
  };
}

export function realNodePaths(layout: RealNodeLayout) {
  const { varDir, runDir, configDir } = layout;
  return {
    kubeletRoot: path.join(varDir, 'kubelet'),
    kubeletCerts: path.join(varDir, 'kubelet-pki'),
    containerdRoot: path.join(varDir, 'containerd'),
    cniLeases: path.join(varDir, 'cni-leases'),
    containerdState: path.join(runDir, 'containerd'),
    containerdSocket: path.join(runDir, 'containerd.sock'),
    pidDir: path.join(runDir, 'pids'),
    savedHost: path.join(runDir, 'host-settings.json'),
    containerdConfig: path.join(configDir, 'containerd.toml'),
    cniConfDir: path.join(configDir, 'net.d'),
    kubeletConfig: path.join(configDir, 'kubelet.yaml'),
    kubeProxyConfig: path.join(configDir, 'kube-proxy.yaml'),
    corefile: path.join(configDir, 'Corefile'),
    resolvConf: path.join(configDir, 'resolv.conf'),
    kubeconfig: path.join(configDir, 'kubeconfig'),
    logDir: path.join(configDir, 'logs'),
  };
}

export type RealNodePaths = ReturnType<typeof realNodePaths>;

/** containerd 1.6 (config version 2) with only what the CRI plugin of this sandbox needs. */
export function containerdConfig(paths: RealNodePaths, sandboxImage: string): string {
  return toToml({
    version: 2,
    root: paths.containerdRoot,
    state: paths.containerdState,
    grpc: { address: paths.containerdSocket },
    ttrpc: { address: `${paths.containerdSocket}.ttrpc` },
    // Nothing of ours needs them, and `opt` would install into /opt/containerd.
    disabled_plugins: [
      'io.containerd.internal.v1.opt',
      'io.containerd.internal.v1.tracing',
      'io.containerd.snapshotter.v1.aufs',
      'io.containerd.snapshotter.v1.btrfs',
      'io.containerd.snapshotter.v1.devmapper',
      'io.containerd.snapshotter.v1.zfs',
    ],
    plugins: {
      'io.containerd.grpc.v1.cri': {
        sandbox_image: sandboxImage,
        // Root here lacks CAP_SYS_RESOURCE: without this every sandbox fails to lower its OOM score.
        restrict_oom_score_adj: true,
        disable_apparmor: true,
        enable_selinux: false,
        containerd: {
          snapshotter: 'overlayfs',
          default_runtime_name: 'runc',
          runtimes: {
            runc: { runtime_type: 'io.containerd.runc.v2', options: { SystemdCgroup: false } },
          },
        },
        cni: { bin_dir: CNI_BIN_DIR, conf_dir: paths.cniConfDir, max_conf_num: 1 },
      },
    },
  });
}

/** One bridge with host-local addresses; the node's address is the bridge's gateway. */
export function cniConfig(paths: RealNodePaths): string {
  const conflist = {
    cniVersion: '1.0.0',
    name: 'flux-operator-real-node',
    plugins: [
      {
        type: 'bridge',
        bridge: BRIDGE_NAME,
        isGateway: true,
        ipMasq: true,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          dataDir: paths.cniLeases,
          ranges: [[{ subnet: POD_SUBNET, gateway: NODE_IP }]],
          routes: [{ dst: '0.0.0.0/0' }],
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
  return `${JSON.stringify(conflist, null, 2)}\n`;
}

export function kubeletConfig(paths: RealNodePaths, clientCaFile: string): string {
  return toYaml({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // Kubernetes 1.35 refuses cgroup v1 unless told otherwise; this machine kind has v1.
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
    address: NODE_IP,
    port: KUBELET_PORT,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: clientCaFile },
    },
    authorization: { mode: 'Webhook' },
    clusterDNS: [CLUSTER_DNS_IP],
    clusterDomain: CLUSTER_DOMAIN,
    resolvConf: paths.resolvConf,
    // Images are loaded by hand, never pulled: they must not be collected.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    // A busy development disk must not make the kubelet evict test pods.
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
    maxPods: 110,
    serializeImagePulls: false,
    registerNode: true,
  });
}

export function kubeProxyConfig(paths: RealNodePaths): string {
  return toYaml({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig: paths.kubeconfig },
    hostnameOverride: REAL_NODE_NAME,
    mode: 'iptables',
    clusterCIDR: CLUSTER_CIDR,
    bindAddress: NODE_IP,
    healthzBindAddress: '127.0.0.1:10256',
    metricsBindAddress: '127.0.0.1:10249',
    // NodePorts on the node's own address only: nothing opens on the machine's network, and
    // kube-proxy leaves route_localnet alone.
    nodePortAddresses: [`${NODE_IP}/32`],
    // Zero: kube-proxy leaves the host's conntrack sysctls as they are.
    conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
  });
}

/** CoreDNS on the host, answering for the cluster domain on the node's address. */
export function corefile(kubeconfig: string): string {
  return [
    '.:53 {',
    `    bind ${NODE_IP}`,
    '    errors',
    `    kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {`,
    `        kubeconfig ${kubeconfig}`,
    '        pods insecure',
    '        fallthrough in-addr.arpa ip6.arpa',
    '    }',
    '}',
    '',
  ].join('\n');
}

/** Pods get the cluster DNS only; the machine's own resolvers and search domains stay out. */
export function podResolvConf(): string {
  return '# The real node gives pods the cluster DNS only (kubelet clusterDNS).\n';
}

/** kube-system/kube-dns: a Service without selector, its one endpoint CoreDNS on the node's address. */
export function clusterDnsObjects(): [object, object] {
  const ports = [
    { name: 'dns', port: 53, protocol: 'UDP' },
    { name: 'dns-tcp', port: 53, protocol: 'TCP' },
  ];
  const labels = { 'k8s-app': 'kube-dns', 'app.kubernetes.io/managed-by': 'flux-operator-localcluster' };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kube-dns', namespace: 'kube-system', labels },
    spec: { clusterIP: CLUSTER_DNS_IP, ports: ports.map((p) => ({ ...p, targetPort: 53 })) },
  };
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: 'kube-dns-real-node',
      namespace: 'kube-system',
      labels: {
        ...labels,
        'kubernetes.io/service-name': 'kube-dns',
        'endpointslice.kubernetes.io/managed-by': 'flux-operator-localcluster',
      },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [NODE_IP], conditions: { ready: true }, nodeName: REAL_NODE_NAME }],
    ports,
  };
  return [service, slice];
}
