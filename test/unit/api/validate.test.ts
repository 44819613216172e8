import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import type { MiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';
import {
  assertProblems,
  type ProblemCase as Case,
  CURVE_CERT,
  FLUX_IMAGE,
  fluxContainer,
  miniCluster,
  withSidecar,
} from './fixtures.ts';

function withStatus(mc: MiniClusterV1alpha1, status: MiniClusterV1alpha1['status']): MiniClusterV1alpha1 {
  return { ...mc, status };
}

const leadBroker = { address: '203.0.113.7', name: 'lead', size: 2 };

const semanticCases: Case[] = [
  {
    name: 'maxSize below size',
    input: miniCluster({ size: 4, maxSize: 2 }),
    problems: [['spec.maxSize', /^must be >= spec\.size \(4\); raise maxSize or lower size$/]],
  },
  {
    name: 'size above the maximum recorded at creation',
    input: withStatus(miniCluster({ size: 6 }), { maximumSize: 4 }),
    problems: [['spec.size', /must be <= status\.maximumSize \(4\)/]],
  },
  {
    name: 'metadata.name not a DNS label',
    input: miniCluster({}, '1-starts-with-digit'),
    problems: [['metadata.name', /must be a DNS label .*starting with a letter/]],
  },
  {
    name: 'metadata.name too long for <name>-<index> with maxSize 100',
    input: miniCluster({ size: 1, maxSize: 100 }, 'a'.repeat(61)),
    problems: [['metadata.name', /at most 60 characters \(got 61\).*-99/]],
  },
  {
    name: 'several containers, none runs Flux',
    input: miniCluster({ containers: [fluxContainer({ name: 'a' }), fluxContainer({ name: 'b' })] }),
    problems: [['spec.containers', /no container sets runFlux: true/]],
  },
  {
    name: 'several containers, two run Flux',
    input: miniCluster({
      containers: [fluxContainer({ name: 'a', runFlux: true }), fluxContainer({ name: 'b', runFlux: true })],
    }),
    problems: [['spec.containers', /containers 0, 1 all set runFlux: true; keep it on exactly one/]],
  },
  {
    name: 'a sidecar without a name',
    input: miniCluster({ containers: [fluxContainer({ runFlux: true }), { image: 'busybox' }] }),
    problems: [['spec.containers[1].name', /is required for containers that do not run Flux/]],
  },
  {
    name: 'a sidecar named like the defaulted Flux container',
    input: miniCluster({
      containers: [fluxContainer({ runFlux: true }), { name: 'flux-sample', image: 'busybox' }],
    }),
    problems: [
      [
        'spec.containers[1].name',
        /duplicates spec\.containers\[0\]\.name "flux-sample".*named after the MiniCluster/,
      ],
    ],
  },
  {
    name: 'launcher with batch, batchRaw without batch',
    input: miniCluster({
      containers: withSidecar().map((container, index) =>
        index === 0 ? { ...container, launcher: true, batch: true } : { ...container, batchRaw: true },
      ),
    }),
    problems: [
      ['spec.containers[0].launcher', /launcher and batch exclude each other/],
      ['spec.containers[1].batchRaw', /needs batch: true/],
    ],
  },
  {
    name: 'duplicate ports and capabilities',
    input: miniCluster({
      containers: [
        fluxContainer({
          ports: [8080, 9090, 8080],
          securityContext: { addCapabilities: ['SYS_ADMIN', 'SYS_ADMIN'] },
        }),
      ],
    }),
    problems: [
      ['spec.containers[0].ports[2]', /duplicates port 8080/],
      ['spec.containers[0].securityContext.addCapabilities[1]', /duplicates SYS_ADMIN/],
    ],
  },
  {
    name: 'volume without a source, with two sources, items on a PVC, emptyDir options without emptyDir',
    input: miniCluster({
      containers: [
        fluxContainer({
          volumes: {
            none: { path: '/a' },
            both: { path: '/b', claimName: 'c', hostPath: '/srv' },
            items: { path: '/c', claimName: 'c2', items: { key: 'file' } },
            medium: { path: '/d', hostPath: '/x', emptyDirMedium: 'Memory' },
          },
        }),
      ],
    }),
    problems: [
      ['spec.containers[0].volumes[both]', /has several sources \(claimName, hostPath\); keep exactly one/],
      ['spec.containers[0].volumes[items].items', /applies to configMapName or secretName volumes only/],
      [
        'spec.containers[0].volumes[medium]',
        /emptyDirMedium and emptyDirSizeLimit apply to emptyDir: true volumes only/,
      ],
      [
        'spec.containers[0].volumes[none]',
        /^has no source, so it names storage of spec\.volumes, which has no entry "none"; add one to spec\.volumes or set one of configMapName, secretName, claimName, hostPath or emptyDir: true$/,
      ],
    ],
  },
  {
    name: 'volume name not a DNS label',
    input: miniCluster({
      containers: [fluxContainer({ existingVolumes: { Data_1: { path: '/data', secretName: 's' } } })],
    }),
    problems: [['spec.containers[0].existingVolumes[Data_1]', /volume name "Data_1" must be a DNS label/]],
  },
  {
    name: 'a volume name in both volumes and existingVolumes',
    input: miniCluster({
      containers: [
        fluxContainer({
          volumes: { data: { path: '/data', claimName: 'a' } },
          existingVolumes: { data: { path: '/data2', claimName: 'a' } },
        }),
      ],
    }),
    problems: [['spec.containers[0].existingVolumes[data]', /is also in spec\.containers\[0\]\.volumes/]],
  },
  {
    name: 'one pod volume name with two different sources across containers',
    input: miniCluster({
      containers: withSidecar().map((container, index) => ({
        ...container,
        volumes: { data: { path: '/data', claimName: index === 0 ? 'first' : 'second' } },
      })),
    }),
    problems: [
      [
        'spec.containers[1].volumes[data]',
        /has a different source than spec\.containers\[0\]\.volumes\[data\]/,
      ],
    ],
  },
  {
    name: 'invalid and reserved label keys',
    input: miniCluster({
      jobLabels: { 'bad key': 'x' },
      pod: {
        labels: { 'app.kubernetes.io/instance': 'other' },
        annotations: { 'example.com/ok': 'yes', '-no': 'x' },
      },
    }),
    problems: [
      ['spec.jobLabels[bad key]', /must be a label key/],
      ['spec.pod.labels[app.kubernetes.io/instance]', /is set by the operator .*; remove it/],
      ['spec.pod.annotations[-no]', /must be a label key/],
    ],
  },
  {
    name: 'sharedSelector without an explicit headlessName',
    input: miniCluster({ network: { sharedSelector: { 'example.com/group': 'a' } } }),
    problems: [['spec.network.headlessName', /is required with sharedSelector/]],
  },
  {
    name: 'burst hostlist together with clusters',
    input: miniCluster({ flux: { bursting: { hostlist: 'x-[0-3]', clusters: [{ name: 'gke' }] } } }),
    problems: [['spec.flux.bursting.hostlist', /set only one of hostlist and clusters/]],
  },
  {
    name: 'burst cluster names: duplicate after defaulting, same as the MiniCluster, too long for their size',
    input: miniCluster({
      flux: {
        bursting: {
          clusters: [{ name: 'burst-1' }, {}, { name: 'flux-sample' }, { name: 'b'.repeat(60), size: 1000 }],
        },
      },
    }),
    problems: [
      ['spec.flux.bursting.clusters[2].name', /"flux-sample" is already a host name prefix of this instance/],
      ['spec.flux.bursting.clusters[3].name', /at most 59 characters \(got 60\)/],
      [
        'spec.flux.bursting.clusters[1].name',
        /duplicates spec\.flux\.bursting\.clusters\[0\]\.name "burst-1"/,
      ],
    ],
  },
  {
    name: 'a burst cluster named like the lead MiniCluster on the external side',
    input: miniCluster(
      {
        flux: {
          curveCertSecret: 'c',
          mungeSecret: 'm',
          bursting: { leadBroker, clusters: [{ name: 'lead' }] },
        },
      },
      'burst-0',
    ),
    problems: [
      ['spec.flux.bursting.clusters[0].name', /"lead" is already a host name prefix of this instance/],
    ],
  },
  {
    name: 'more brokers than the instance may list',
    input: miniCluster({ size: 1, maxSize: 9000, flux: { bursting: { clusters: [{ size: 1001 }] } } }),
    problems: [['spec.maxSize', /would list 10001 brokers .* more than 10000/]],
  },
  {
    name: 'curveCert together with curveCertSecret',
    input: miniCluster({ flux: { curveCert: CURVE_CERT, curveCertSecret: 'curve' } }),
    problems: [['spec.flux.curveCert', /excludes curveCertSecret/]],
  },
  {
    name: 'curveCert that is not a zcert',
    input: miniCluster({ flux: { curveCert: 'not a certificate' } }),
    problems: [['spec.flux.curveCert', /must be a ZeroMQ CURVE certificate/]],
  },
  {
    name: 'leadBroker without certificate or munge key, named like this MiniCluster',
    input: miniCluster({ flux: { bursting: { leadBroker: { ...leadBroker, name: 'flux-sample' } } } }),
    problems: [
      ['spec.flux.bursting.leadBroker', /needs the lead MiniCluster's CURVE certificate/],
      ['spec.flux.bursting.leadBroker', /needs the lead MiniCluster's munge key/],
      ['spec.flux.bursting.leadBroker.name', /equals this MiniCluster's name/],
    ],
  },
  {
    name: 'bootServer without size, naming itself, with a leadBroker',
    input: miniCluster({
      flux: { bootServer: 'flux-sample', curveCertSecret: 'c', mungeSecret: 'm', bursting: { leadBroker } },
    }),
    problems: [
      ['spec.flux.bootServerSize', /is required with bootServer/],
      ['spec.flux.bootServer', /excludes bursting\.leadBroker/],
      ['spec.flux.bootServer', /names this MiniCluster itself/],
    ],
  },
  {
    name: 'pod.shmSize above the Flux container memory limit',
    input: miniCluster({
      containers: withSidecar().map((container, index) =>
        index === 0 ? { ...container, resources: { limits: { memory: '512Mi' } } } : container,
      ),
      pod: { shmSize: '1Gi' },
    }),
    problems: [
      [
        'spec.pod.shmSize',
        /^is 1Gi, more than the memory limit of the Flux container \(spec\.containers\[0\]\.resources\.limits\.memory: 512Mi\): what \/dev\/shm holds counts against that limit, so the processes writing it would be killed before it is full; lower shmSize, or raise spec\.containers\[0\]\.resources\.limits\.memory$/,
      ],
    ],
  },
  {
    name: 'pod.shmSize above the pod memory limit',
    input: miniCluster({ pod: { resources: { memory: 1000000 }, shmSize: '1Mi' } }),
    problems: [
      [
        'spec.pod.shmSize',
        /^is 1Mi, more than the memory limit of the pod \(spec\.pod\.resources\.memory: 1000000\): what \/dev\/shm holds counts against that limit, so the processes writing it would be killed before it is full; lower shmSize, or raise spec\.pod\.resources\.memory$/,
      ],
    ],
  },
  {
    name: 'bootServerSize without bootServer',
    input: miniCluster({ flux: { bootServerSize: 2 } }),
    problems: [['spec.flux.bootServer', /is required with bootServerSize/]],
  },
];

const schemaCases: Case[] = [
  { name: 'not an object', input: 'MiniCluster', problems: [['', /must be a MiniCluster object/]] },
  {
    name: 'wrong apiVersion and kind, no spec',
    input: { apiVersion: 'flux-framework.org/v1alpha2', kind: 'Job', metadata: { name: 'x' } },
    problems: [
      ['spec', /^is required$/],
      ['apiVersion', /must be "flux-framework\.org\/v1alpha1"; got "flux-framework\.org\/v1alpha2"/],
      ['kind', /must be "MiniCluster"/],
    ],
  },
  {
    name: 'bounds, types, enums, patterns, unknown fields',
    input: miniCluster({
      size: 0,
      containers: [{ imag: FLUX_IMAGE, workingDir: 'relative' } as never],
      logging: { quiet: 'yes' as never },
      flux: {
        logLevel: 9,
        connectTimeout: 'soon',
        topology: 'tree',
        scheduler: { queuePolicy: 'lifo' as never },
      },
      pod: { resources: { cpu: '1x' }, tolerations: [{ operator: 'Eq' as never }], shmSize: '1 Gi' },
      network: { headlessName: 'Flux_Service' },
    }),
    problems: [
      ['spec.size', /^must be >= 1; got 0$/],
      ['spec.containers[0].image', /^is required$/],
      ['spec.containers[0].imag', /is not a field of this object; check the spelling/],
      ['spec.containers[0].workingDir', /must be an absolute path/],
      ['spec.logging.quiet', /must be true or false; got a string/],
      ['spec.network.headlessName', /must be a DNS label.*starting with a letter; got "Flux_Service"/],
      ['spec.pod.tolerations[0].operator', /^must be one of: Exists, Equal; got "Eq"$/],
      ['spec.pod.resources[cpu]', /must be a quantity such as 500m, 2Gi or 4; got "1x"/],
      ['spec.pod.shmSize', /^must be a quantity such as 500m, 2Gi or 4; got "1 Gi"$/],
      ['spec.flux.logLevel', /^must be <= 7; got 9$/],
      ['spec.flux.connectTimeout', /must be a duration such as 5s/],
      ['spec.flux.topology', /must be kary:K, binomial, mincrit or mincrit:K/],
      ['spec.flux.scheduler.queuePolicy', /must be one of: fcfs, easy, hybrid, conservative/],
    ],
  },
  {
    name: 'no containers, too long a label value, a map key with a slash',
    input: miniCluster({ containers: [], pod: { nodeSelector: { 'example.com/zone': 'z'.repeat(64) } } }),
    problems: [
      ['spec.containers', /must have at least 1 item/],
      ['spec.pod.nodeSelector[example.com/zone]', /must have at most 63 characters; got 64/],
    ],
  },
  {
    name: 'bad status timestamps and condition status',
    input: withStatus(miniCluster(), {
      startTime: 'yesterday',
      conditions: [
        {
          type: 'Ready',
          status: 'Yes' as never,
          reason: 'Up',
          message: '',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    }),
    problems: [
      ['status.conditions[0].status', /must be one of: True, False, Unknown/],
      ['status.startTime', /must be an RFC 3339 date-time/],
    ],
  },
];

describe('validateMiniClusterV1alpha1', () => {
  it('accepts a valid MiniCluster and returns it defaulted', () => {
    const result = validateMiniClusterV1alpha1(miniCluster());
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.equal(result.value.spec.maxSize, 4);
    assert.equal(result.value.spec.network.headlessName, 'flux-sample');
  });

  it('accepts a MiniCluster using most fields', () => {
    const result = validateMiniClusterV1alpha1(
      withStatus(
        miniCluster({
          size: 2,
          maxSize: 4,
          interactive: true,
          jobLabels: { team: 'hpc' },
          containers: withSidecar({
            ports: [8080],
            volumes: { data: { path: '/data', claimName: 'data' } },
            environment: { MODE: 'sidecar' },
          }).map((container, index) =>
            index === 0
              ? {
                  ...container,
                  cores: 4,
                  resources: {
                    limits: { memory: '8Gi', 'example.com/gpu': 1 },
                    requests: { memory: '6Gi', 'example.com/gpu': '1' },
                  },
                  volumes: {
                    data: { path: '/work', claimName: 'data', readOnly: true },
                    config: { path: '/etc/app', configMapName: 'app', items: { 'app.toml': 'app.toml' } },
                    scratch: {
                      path: '/scratch',
                      emptyDir: true,
                      emptyDirMedium: 'Memory',
                      emptyDirSizeLimit: '1Gi',
                    },
                  },
                  commands: {
                    pre: 'echo pre',
                    brokerPre: 'echo lead',
                    workerPre: 'echo worker',
                    prefix: 'time',
                  },
                  lifeCycle: { postStartExec: 'echo started' },
                  securityContext: { privileged: false, addCapabilities: ['SYS_PTRACE'] },
                }
              : container,
          ),
          logging: { debug: true },
          network: { headlessName: 'shared', sharedSelector: { 'example.com/group': 'a' } },
          pod: {
            labels: { tier: 'compute' },
            annotations: { 'example.com/note': 'anything goes: here' },
            serviceAccountName: 'flux',
            nodeSelector: { 'kubernetes.io/arch': 'amd64' },
            tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
            resources: { cpu: 4 },
          },
          flux: {
            optionFlags: '-ompi=openmpi@5',
            logLevel: 7,
            connectTimeout: '30s',
            topology: 'kary:4',
            curveCertSecret: 'curve',
            mungeSecret: 'munge',
            bursting: { clusters: [{ name: 'gke', size: 8 }, {}] },
            scheduler: { queuePolicy: 'easy' },
          },
          archive: { path: '/state/archive.sqlite' },
        }),
        {
          size: 2,
          maximumSize: 4,
          selector: 'app.kubernetes.io/name=flux-minicluster',
          startTime: '2026-01-01T00:00:00Z',
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'AllBrokersUp',
              message: '',
              lastTransitionTime: '2026-01-01T00:00:05Z',
              observedGeneration: 1,
            },
          ],
        },
      ),
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
  });

  it('accepts an external burst MiniCluster joining a lead broker, listing itself as a burst cluster', () => {
    const result = validateMiniClusterV1alpha1(
      miniCluster(
        {
          flux: {
            curveCert: CURVE_CERT,
            mungeSecret: 'munge',
            bursting: { leadBroker, clusters: [{ name: 'burst-0', size: 4 }] },
          },
        },
        'burst-0',
      ),
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
  });

  for (const { name, input, problems } of [...semanticCases, ...schemaCases]) {
    it(`reports ${name}`, () => assertProblems(input, problems));
  }

  it('formats a problem as "path: message"', () => {
    assert.equal(
      formatProblem({
        path: 'spec.maxSize',
        message: 'must be >= spec.size (4); raise maxSize or lower size',
      }),
      'spec.maxSize: must be >= spec.size (4); raise maxSize or lower size',
    );
    assert.equal(
      formatProblem({ path: '', message: 'must be a MiniCluster object' }),
      'must be a MiniCluster object',
    );
  });
});
