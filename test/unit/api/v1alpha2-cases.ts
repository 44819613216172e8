/**
 * Bad v1alpha2 MiniClusters, each with the problems the validator reports (field path, message). The
 * unit tests check the validator against them; the integration test sends them to the API server,
 * which must refuse each one too (its CEL rules are the twins).
 */
import { CURVE_CERT } from './fixtures.ts';
import { APP_IMAGE, miniClusterV1alpha2 } from './v1alpha2-fixtures.ts';
import type { MiniClusterSpec } from '../../../src/api/schema.ts';

export interface BadCase {
  name: string;
  input: unknown;
  problems: [path: string, message: RegExp][];
}

type Container = MiniClusterSpec['containers'][number];

function withContainer(container: Partial<Container>, spec: Partial<MiniClusterSpec> = {}) {
  return miniClusterV1alpha2({
    containers: [{ image: APP_IMAGE, command: 'hostname', ...container }],
    ...spec,
  });
}

function withSidecar(sidecar: Partial<Container>, spec: Partial<MiniClusterSpec> = {}) {
  return miniClusterV1alpha2({
    containers: [
      { image: APP_IMAGE, command: 'hostname', runFlux: true },
      { name: 'sidecar', image: APP_IMAGE, ...sidecar },
    ],
    ...spec,
  });
}

const LEFT_OUT = /^is a field of the Go Flux Operator's v1alpha2 API \(.+\) that cannot work here; .+/;

export const V1ALPHA2_BAD_CASES: BadCase[] = [
  {
    name: 'flux.arch, a field of the Go operator it never read',
    input: miniClusterV1alpha2({ flux: { arch: 'arm64' } }),
    problems: [['spec.flux.arch', LEFT_OUT]],
  },
  {
    name: "a container's windowsOptions",
    input: withContainer({ securityContext: { windowsOptions: { hostProcess: true } } }),
    problems: [['spec.containers[0].securityContext.windowsOptions', LEFT_OUT]],
  },
  {
    name: "the pod's windowsOptions",
    input: miniClusterV1alpha2({ pod: { securityContext: { windowsOptions: { runAsUserName: 'u' } } } }),
    problems: [['spec.pod.securityContext.windowsOptions', LEFT_OUT]],
  },
  {
    name: 'procMount Unmasked',
    input: withContainer({ securityContext: { procMount: 'Unmasked' } }),
    problems: [['spec.containers[0].securityContext.procMount', /hostUsers: false/]],
  },
  {
    name: 'allowPrivilegeEscalation false with privileged',
    input: withContainer({ securityContext: { privileged: true, allowPrivilegeEscalation: false } }),
    problems: [['spec.containers[0].securityContext.allowPrivilegeEscalation', /excludes privileged: true/]],
  },
  {
    name: 'a Localhost seccomp profile without its file',
    input: withContainer({ securityContext: { seccompProfile: { type: 'Localhost' } } }),
    problems: [
      ['spec.containers[0].securityContext.seccompProfile.localhostProfile', /required with type Localhost/],
    ],
  },
  {
    name: 'a seccomp file with another type',
    input: miniClusterV1alpha2({
      pod: { securityContext: { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'p.json' } } },
    }),
    problems: [['spec.pod.securityContext.seccompProfile.localhostProfile', /forbidden with any other type/]],
  },
  {
    name: 'a capability dropped twice',
    input: withContainer({ securityContext: { capabilities: { drop: ['ALL', 'ALL'] } } }),
    problems: [['spec.containers[0].securityContext.capabilities.drop[1]', /duplicates ALL/]],
  },
  {
    name: 'a capability added twice (a v1alpha1 rule, at its v1alpha2 path)',
    input: withContainer({ securityContext: { capabilities: { add: ['SYS_ADMIN', 'SYS_ADMIN'] } } }),
    problems: [['spec.containers[0].securityContext.capabilities.add[1]', /duplicates SYS_ADMIN/]],
  },
  {
    name: 'restartPolicy Always',
    input: miniClusterV1alpha2({ pod: { restartPolicy: 'Always' } }),
    problems: [['spec.pod.restartPolicy', /not allowed for the pods of a Job/]],
  },
  {
    name: 'dnsPolicy None',
    input: miniClusterV1alpha2({ pod: { dnsPolicy: 'None' } }),
    problems: [['spec.pod.dnsPolicy', /dnsConfig/]],
  },
  {
    name: 'a node affinity key that is no label key',
    input: miniClusterV1alpha2({ pod: { nodeAffinity: { 'a b': ['x'] } } }),
    problems: [['spec.pod.nodeAffinity[a b]', /must be a label key/]],
  },
  {
    name: 'a node affinity without values',
    input: miniClusterV1alpha2({ pod: { nodeAffinity: { zone: [] } } }),
    problems: [['spec.pod.nodeAffinity[zone]', /at least 1 item/]],
  },
  {
    name: 'a sysctl set twice',
    input: miniClusterV1alpha2({
      pod: {
        securityContext: {
          sysctls: [
            { name: 'net.core.somaxconn', value: '1' },
            { name: 'net.core.somaxconn', value: '2' },
          ],
        },
      },
    }),
    problems: [['spec.pod.securityContext.sysctls[1].name', /set each sysctl once/]],
  },
  {
    name: 'minSize above size',
    input: miniClusterV1alpha2({ size: 2, minSize: 3 }),
    problems: [['spec.minSize', /must be <= spec.size/]],
  },
  {
    name: 'a negative backoffLimit',
    input: miniClusterV1alpha2({ backoffLimit: -1 }),
    problems: [['spec.backoffLimit', /must be >= 0/]],
  },
  {
    name: 'a Flux container with a command and a script',
    input: withContainer({ commands: { script: 'echo' } }),
    problems: [['spec.containers[0].commands.script', /keep one of them/]],
  },
  {
    name: 'noWrapEntrypoint on the Flux container',
    input: withContainer({ noWrapEntrypoint: true }),
    problems: [['spec.containers[0].noWrapEntrypoint', /applies to containers that do not run Flux/]],
  },
  {
    name: "a container named like the view's init container",
    input: withSidecar({ name: 'flux-view', noWrapEntrypoint: true }),
    problems: [['spec.containers[1].name', /name of the Flux view init container/]],
  },
  {
    name: "an unnamed Flux container of a MiniCluster named like the view's init container",
    input: miniClusterV1alpha2({}, 'flux-view'),
    problems: [
      ['spec.containers[0].name', /name of the Flux view init container.*named after the MiniCluster/],
    ],
  },
  {
    name: 'a queue policy with sched-simple',
    input: miniClusterV1alpha2({ flux: { scheduler: { simple: true, queuePolicy: 'easy' } } }),
    problems: [['spec.flux.scheduler.queuePolicy', /simple: true/]],
  },
  {
    name: 'a view environment variable that is no name',
    input: miniClusterV1alpha2({ flux: { environment: { '1X': 'y' } } }),
    problems: [['spec.flux.environment[1X]', /environment variable name/]],
  },
  {
    name: "the view's requests above its limits",
    input: miniClusterV1alpha2({
      flux: { container: { resources: { limits: { cpu: 1 }, requests: { cpu: 2 } } } },
    }),
    problems: [['spec.flux.container.resources.requests[cpu]', /at most the limit/]],
  },
  {
    name: 'a view image with spaces',
    input: miniClusterV1alpha2({ flux: { container: { image: 'a b' } } }),
    problems: [['spec.flux.container.image', /image reference/]],
  },
  {
    name: 'a volume with two sources',
    input: withContainer({
      volumes: { data: { path: '/data', hostPath: '/srv', csiDriver: 'csi.example.com' } },
    }),
    problems: [['spec.containers[0].volumes[data]', /several sources \(hostPath, csiDriver\)/]],
  },
  {
    name: 'a claim volume without a path',
    input: withContainer({ volumes: { data: { claimName: 'data' } } }),
    problems: [['spec.containers[0].volumes[data].path', /is required: where the volume is mounted/]],
  },
  {
    name: 'CSI attributes without a driver',
    input: withContainer({ volumes: { data: { path: '/d', csiDriverAttributes: { a: 'b' } } } }),
    problems: [['spec.containers[0].volumes[data].csiDriverAttributes', /applies to csiDriver volumes only/]],
  },
  {
    name: 'an emptyDir medium without emptyDir',
    input: withContainer({ volumes: { data: { path: '/d', emptyDirMedium: 'memory' } } }),
    problems: [['spec.containers[0].volumes[data]', /apply to emptyDir: true volumes only/]],
  },
  {
    name: 'an emptyDir medium the Go operator does not know',
    input: withContainer({ volumes: { data: { emptyDir: true, emptyDirMedium: 'disk' as never } } }),
    problems: [
      ['spec.containers[0].volumes[data].emptyDirMedium', /must be one of: memory, Memory, HugePages/],
    ],
  },
  {
    name: 'two volumes at /dev/shm (an emptyDir without a path is there)',
    input: withContainer({
      volumes: { shm: { emptyDir: true }, other: { path: '/dev/shm', claimName: 'c' } },
    }),
    problems: [
      [
        'spec.containers[0].volumes[other].path',
        /also the mount path of spec.containers\[0\].volumes\[shm\]/,
      ],
    ],
  },
  {
    name: 'one pod volume name with two sources',
    input: miniClusterV1alpha2({
      containers: [
        {
          image: APP_IMAGE,
          command: 'hostname',
          runFlux: true,
          volumes: { data: { path: '/data', claimName: 'one' } },
        },
        { name: 'sidecar', image: APP_IMAGE, volumes: { data: { path: '/data', claimName: 'other' } } },
      ],
    }),
    problems: [['spec.containers[1].volumes[data]', /different sources in different containers/]],
  },
  {
    name: 'a volume with a source named like a spec.volumes entry',
    input: withContainer(
      { volumes: { data: { path: '/data', claimName: 'claim' } } },
      { volumes: { data: { path: '/srv/data' } } },
    ),
    problems: [
      ['spec.containers[0].volumes[data]', /has a source of its own and the name of spec.volumes\[data\]/],
    ],
  },
  {
    name: "a Flux container volume at the view's mount path",
    input: withContainer(
      { volumes: { view: { path: '/opt/view', emptyDir: true } } },
      { flux: { container: { mountPath: '/opt/view' } } },
    ),
    problems: [['spec.containers[0].volumes[view].path', /the Flux view/]],
  },
  {
    name: 'pod.shmSize above the Flux container memory limit',
    input: withContainer({ resources: { limits: { memory: '1Gi' } } }, { pod: { shmSize: '1536Mi' } }),
    problems: [
      [
        'spec.pod.shmSize',
        /^is 1536Mi, more than the memory limit of the Flux container \(spec\.containers\[0\]\.resources\.limits\.memory: 1Gi\): what \/dev\/shm holds counts against that limit, so the processes writing it would be killed before it is full; lower shmSize, or raise spec\.containers\[0\]\.resources\.limits\.memory$/,
      ],
    ],
  },
  {
    name: 'pod.shmSize above the pod memory limit',
    input: miniClusterV1alpha2({ pod: { resources: { memory: '512Mi' }, shmSize: '1G' } }),
    problems: [
      [
        'spec.pod.shmSize',
        /^is 1G, more than the memory limit of the pod \(spec\.pod\.resources\.memory: 512Mi\): .*; lower shmSize, or raise spec\.pod\.resources\.memory$/,
      ],
    ],
  },
  {
    name: "pod.shmSize with hostIPC (which shares the node's /dev/shm)",
    input: miniClusterV1alpha2({ pod: { hostIPC: true, shmSize: '2Gi' } }),
    problems: [
      [
        'spec.pod.shmSize',
        /^sizes the \/dev\/shm volume the operator mounts, which would hide the node's \/dev\/shm that hostIPC shares with the pods; remove shmSize \(or set it to 0\), or remove hostIPC$/,
      ],
    ],
  },
  {
    name: 'pod.shmSize not a quantity',
    input: miniClusterV1alpha2({ pod: { shmSize: '-1Gi' } }),
    problems: [['spec.pod.shmSize', /^must be a quantity such as 500m, 2Gi or 4/]],
  },
  {
    name: 'users without fluxRestful',
    input: miniClusterV1alpha2({ containers: [{ image: APP_IMAGE }], users: [{ name: 'u' }] }),
    problems: [['spec.users', /serves only with fluxRestful/]],
  },
  {
    name: 'noWrapEntrypoint on a service',
    input: miniClusterV1alpha2({ services: [{ name: 'web', image: 'nginx', noWrapEntrypoint: true }] }),
    problems: [['spec.services[0].noWrapEntrypoint', /is a field of the Flux container/]],
  },
  {
    name: 'runFlux on a service (a v1alpha1 rule)',
    input: miniClusterV1alpha2({ services: [{ name: 'web', image: 'nginx', runFlux: true }] }),
    problems: [['spec.services[0].runFlux', /is a field of the Flux container/]],
  },
  {
    name: 'maxSize below size (a v1alpha1 rule)',
    input: miniClusterV1alpha2({ size: 4, maxSize: 2 }),
    problems: [['spec.maxSize', /must be >= spec.size \(4\)/]],
  },
  {
    name: 'curveCert with curveCertSecret (a v1alpha1 rule)',
    input: miniClusterV1alpha2({ flux: { curveCert: CURVE_CERT, curveCertSecret: 'c' } }),
    problems: [['spec.flux.curveCert', /excludes curveCertSecret/]],
  },
  {
    name: "v1alpha1's existingVolumes",
    input: withContainer({ existingVolumes: { data: { path: '/d', claimName: 'c' } } } as never),
    problems: [['spec.containers[0].existingVolumes', /^is v1alpha1's name: .*volumes/]],
  },
  {
    name: 'fluxRestful with the Flux container starting as uid 1000',
    input: miniClusterV1alpha2({
      containers: [{ image: APP_IMAGE, securityContext: { runAsUser: 1000 } }],
      fluxRestful: {},
    }),
    problems: [
      [
        'spec.containers[0].securityContext.runAsUser',
        /^starts the Flux container as a user other than root/,
      ],
    ],
  },
  {
    name: 'fluxRestful with the pod starting as non-root',
    input: miniClusterV1alpha2({
      containers: [{ image: APP_IMAGE }],
      pod: { securityContext: { runAsNonRoot: true } },
      fluxRestful: {},
    }),
    problems: [
      ['spec.pod.securityContext.runAsNonRoot', /^starts the Flux container as a user other than root/],
    ],
  },
  {
    name: 'fluxRestful with runFluxAsRoot (a v1alpha1 rule)',
    input: miniClusterV1alpha2({
      containers: [{ image: APP_IMAGE, commands: { runFluxAsRoot: true } }],
      fluxRestful: {},
    }),
    problems: [['spec.containers[0].commands.runFluxAsRoot', /^would run the RESTful API's jobs as root/]],
  },
  {
    name: 'a misspelt field',
    input: miniClusterV1alpha2({ flux: { containr: {} } as never }),
    problems: [['spec.flux.containr', /is not a field of this object/]],
  },
];
