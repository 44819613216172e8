/**
 * The validator refuses what render could not run and what Kubernetes would refuse in the rendered
 * pod: NUL characters, numbers beyond what render holds, host names that collide or do not fit,
 * pod fields Kubernetes checks (tolerations, label keys, annotations, environment names,
 * resources, volumes), and texts that would overflow the ConfigMap.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TASKS, SCRIPT_MAX_LENGTH } from '../../../src/api/shared/limits.ts';
import type { MiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import {
  assertProblems,
  type ProblemCase as Case,
  CURVE_CERT,
  fluxContainer,
  miniCluster,
  withSidecar,
} from './fixtures.ts';
import { defaultedToV1alpha2 } from '../../../src/api/v1alpha1/convert-defaulted.ts';

const leadBroker = { address: '203.0.113.7', name: 'lead', size: 2 };
const keys = { curveCert: CURVE_CERT, mungeSecret: 'munge' };

/** The cases mutation testing found: accepted by the validator, then render threw. */
const renderThrew: Case[] = [
  {
    name: 'a NUL character in the command',
    input: miniCluster({ containers: [fluxContainer({ command: 'echo a\0b' })] }),
    problems: [['spec.containers[0].command', /^must not contain a NUL character; got "echo a\\u0000b"$/]],
  },
  {
    name: 'tasks of 2^53+2',
    input: miniCluster({ tasks: 2 ** 53 + 2 }),
    problems: [['spec.tasks', new RegExp(`^must be <= ${MAX_TASKS}`)]],
  },
  {
    name: 'the external side of a burst larger than its own entry in clusters',
    input: miniCluster(
      { size: 63, flux: { ...keys, bursting: { leadBroker, clusters: [{ name: 'burst-0', size: 4 }] } } },
      'burst-0',
    ),
    problems: [
      [
        'spec.flux.bursting.clusters[0].size',
        /^is 4, but this MiniCluster fills that slot \("burst-0"\) with up to spec\.maxSize \(63\) pods/,
      ],
    ],
  },
];

const hostNames: Case[] = [
  {
    name: 'an external side filling the default name of an unnamed cluster, too small',
    input: miniCluster({
      size: 4,
      maxSize: 6,
      flux: { ...keys, bursting: { leadBroker, slot: 'burst-0', clusters: [{}] } },
    }),
    problems: [['spec.flux.bursting.clusters[0].size', /^is 4, but this MiniCluster fills that slot/]],
  },
  {
    name: 'a slot named like the lead broker, and too long for maxSize',
    input: miniCluster({
      flux: {
        ...keys,
        bursting: { leadBroker: { ...leadBroker, name: 's'.repeat(62) }, slot: 's'.repeat(62) },
      },
    }),
    problems: [
      ['spec.flux.bursting.slot', /^must have at most 61 characters \(got 62\)/],
      ['spec.flux.bursting.slot', /^equals leadBroker\.name/],
      ['spec.flux.bursting.leadBroker.name', /^must have at most 61 characters \(got 62\)/],
    ],
  },
  {
    name: 'a boot server too long for its size',
    input: miniCluster({ flux: { bootServer: 'b'.repeat(61), bootServerSize: 100 } }),
    problems: [['spec.flux.bootServer', /^must have at most 60 characters \(got 61\)/]],
  },
  {
    name: 'a burst hostlist that does not expand, lists a host twice, or too few hosts',
    input: miniCluster({ flux: { bursting: { hostlist: 'n[3-1]' } } }),
    problems: [['spec.flux.bursting.hostlist', /^is not a hostlist: descending range/]],
  },
  {
    name: 'a burst hostlist listing a host twice',
    input: miniCluster({ flux: { bursting: { hostlist: 'n[0-3],n2' } } }),
    problems: [['spec.flux.bursting.hostlist', /^lists "n2" twice/]],
  },
  {
    name: 'a burst hostlist with fewer hosts than the size',
    input: miniCluster({ size: 4, flux: { bursting: { hostlist: 'a,b' } } }),
    problems: [['spec.flux.bursting.hostlist', /^lists 2 hosts, fewer than spec\.size \(4\)/]],
  },
  {
    name: 'a hostlist that is no hostlist, a lead address with a space',
    input: miniCluster({
      flux: { ...keys, bursting: { hostlist: 'a b', leadBroker: { ...leadBroker, address: 'a b' } } },
    }),
    problems: [
      ['spec.flux.bursting.leadBroker.address', /^must be a host name or an IP address/],
      ['spec.flux.bursting.hostlist', /^must be a hostlist/],
    ],
  },
  {
    name: 'a node port on a LoadBalancer, two burst targets of one name',
    input: miniCluster({
      flux: {
        bursting: {
          expose: { type: 'LoadBalancer', nodePort: 30001 },
          policy: { targets: [{ name: 'a' }, { name: 'a' }] },
        },
      },
    }),
    problems: [
      [
        'spec.flux.bursting.policy.targets[1].name',
        /^duplicates spec\.flux\.bursting\.policy\.targets\[0\]\.name/,
      ],
      ['spec.flux.bursting.expose.nodePort', /^applies to type NodePort only/],
    ],
  },
];

/** Fields passed through to the pod, refused as Kubernetes would refuse the Job. */
const podFields: Case[] = [
  {
    name: 'toleration keys with a space, a quote, a $ and non-ASCII',
    input: miniCluster({
      pod: { tolerations: ['a b', 'a"b', '$x', 'é'].map((key) => ({ key, operator: 'Exists' as const })) },
    }),
    problems: [0, 1, 2, 3].map((index) => [`spec.pod.tolerations[${index}].key`, /^must be a label key/]),
  },
  {
    name: 'tolerations: an empty key with Equal, a value with Exists, seconds without NoExecute',
    input: miniCluster({
      pod: {
        tolerations: [
          { key: '', operator: 'Equal' },
          { key: 'gpu', operator: 'Exists', value: 'yes' },
          { key: 'gpu', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 },
        ],
      },
    }),
    problems: [
      ['spec.pod.tolerations[0].operator', /^must be Exists when key is empty/],
      ['spec.pod.tolerations[1].value', /^must be empty with operator Exists/],
      ['spec.pod.tolerations[2].effect', /^must be NoExecute when tolerationSeconds is set/],
    ],
  },
  {
    name: 'a toleration value that is no label value, a toleration too long to wait',
    input: miniCluster({
      pod: { tolerations: [{ key: 'a', value: 'a b', effect: 'NoExecute', tolerationSeconds: 2 ** 53 }] },
    }),
    problems: [
      ['spec.pod.tolerations[0].value', /^must be a label value/],
      ['spec.pod.tolerations[0].tolerationSeconds', /^must be <= 9007199254740991/],
    ],
  },
  {
    name: 'annotations beyond 256 KiB, a node selector key with a long prefix',
    input: miniCluster({
      pod: {
        annotations: {
          a: 'x'.repeat(60000),
          b: 'x'.repeat(60000),
          c: 'x'.repeat(60000),
          d: 'x'.repeat(60000),
          e: 'x'.repeat(60000),
        },
        nodeSelector: { [`${'a'.repeat(254)}/x`]: 'y' },
      },
    }),
    problems: [
      ['spec.pod.nodeSelector[' + 'a'.repeat(254) + '/x]', /^must be a label key/],
      ['spec.pod.annotations', /^must have at most 262144 bytes of keys and values together; got 300005$/],
    ],
  },
  {
    name: 'an environment value with NUL',
    input: miniCluster({ containers: [fluxContainer({ environment: { OK: 'a\0' } })] }),
    problems: [['spec.containers[0].environment[OK]', /^must not contain a NUL character/]],
  },
  {
    name: 'environment names Kubernetes refuses somewhere',
    input: miniCluster({
      containers: [fluxContainer({ environment: { '1A': 'x', 'a b': 'x', 'A=B': 'x', 'my.var-1': 'x' } })],
    }),
    problems: [
      ['spec.containers[0].environment[1A]', /^must be an environment variable name/],
      ['spec.containers[0].environment[a b]', /^must be an environment variable name/],
      ['spec.containers[0].environment[A=B]', /^must be an environment variable name/],
    ],
  },
  {
    name: 'an image with surrounding space',
    input: miniCluster({ containers: [fluxContainer({ image: ' busybox' })] }),
    problems: [['spec.containers[0].image', /^must be an image reference/]],
  },
  {
    name: 'a negative quantity',
    input: miniCluster({ containers: [fluxContainer({ resources: { limits: { memory: '-1' } } })] }),
    problems: [
      [
        'spec.containers[0].resources.limits[memory]',
        /^must be a quantity such as 500m, 2Gi or 4; got "-1"$/,
      ],
    ],
  },
  {
    name: 'resource names a container cannot ask for, fractional whole units',
    input: miniCluster({
      containers: [
        fluxContainer({
          resources: { limits: { pods: 1, 'kubernetes.io/x': 1, 'example.com/gpu': '1500m', cpu: '1' } },
        }),
      ],
    }),
    problems: [
      [
        'spec.containers[0].resources.limits[pods]',
        /^must be cpu, memory, ephemeral-storage, hugepages-<size>/,
      ],
      ['spec.containers[0].resources.limits[kubernetes.io/x]', /^must be cpu, memory/],
      [
        'spec.containers[0].resources.limits[example.com/gpu]',
        /^example\.com\/gpu is counted in whole units/,
      ],
    ],
  },
  {
    name: 'requests above limits, GPUs requested below the limit or without one, huge pages alone or not whole pages',
    input: miniCluster({
      containers: [
        fluxContainer({
          runFlux: true,
          resources: {
            limits: { memory: '1Gi', 'example.com/gpu': 2, 'hugepages-2Mi': '3Mi' },
            requests: { memory: '2Gi', 'example.com/gpu': 1, 'nvidia.com/gpu': 1, 'hugepages-2Mi': '3Mi' },
          },
        }),
        { name: 'huge', image: 'busybox', resources: { limits: { 'hugepages-2Mi': '4Mi' } } },
      ],
    }),
    problems: [
      [
        'spec.containers[0].resources.limits[hugepages-2Mi]',
        /^must be a whole multiple of the page size of hugepages-2Mi/,
      ],
      ['spec.containers[0].resources.requests[hugepages-2Mi]', /^must be a whole multiple of the page size/],
      ['spec.containers[0].resources.requests[memory]', /^must be at most the limit \(1Gi\); got 2Gi$/],
      [
        'spec.containers[0].resources.requests[example.com/gpu]',
        /^must equal the limit \(2\): Kubernetes cannot overcommit/,
      ],
      [
        'spec.containers[0].resources.limits[nvidia.com/gpu]',
        /^is required: Kubernetes cannot overcommit nvidia\.com\/gpu/,
      ],
      ['spec.containers[1].resources', /^huge pages need cpu or memory too/],
    ],
  },
  {
    name: 'pod-level resources other than cpu and memory, or also set by a container',
    input: miniCluster({
      containers: [fluxContainer({ resources: { requests: { cpu: 1 } } })],
      pod: { resources: { cpu: 2, 'hugepages-2Mi': '2Mi' } },
    }),
    problems: [
      ['spec.pod.resources[cpu]', /^spec\.containers\[0\] sets cpu too/],
      ['spec.pod.resources[hugepages-2Mi]', /^pod-level resources are cpu and memory/],
    ],
  },
  {
    name: 'a quantity beyond what JavaScript holds exactly',
    input: miniCluster({
      containers: [fluxContainer({ resources: { limits: { memory: '9007199254740992' } } })],
    }),
    problems: [
      [
        'spec.containers[0].resources.limits[memory]',
        /^must be a quantity such as 500m, 2Gi or 4, at most 9007199254740991$/,
      ],
    ],
  },
  {
    name: 'volumes: item and host paths with .. are refused by the schema, before the name and path checks run',
    input: miniCluster({
      containers: [
        fluxContainer({
          volumes: {
            'flux-operator-state': { path: '/a', emptyDir: true },
            one: { path: '/data', claimName: 'c' },
            two: { path: '/data', hostPath: '/srv/../etc' },
            three: { path: '/mnt/flux', configMapName: 'cm', items: { key: '../x' } },
          },
        }),
      ],
    }),
    problems: [
      ['spec.containers[0].volumes[two].hostPath', /^must be an absolute path without a \.\. element/],
      ['spec.containers[0].volumes[three].items[key]', /^must be a relative path without a \.\. element/],
    ],
  },
  {
    name: 'volumes: an operator name, two on one path, on an operator path',
    input: miniCluster({
      containers: [
        fluxContainer({
          volumes: {
            'flux-operator-state': { path: '/a', emptyDir: true },
            one: { path: '/data', claimName: 'c' },
            two: { path: '/data', hostPath: '/srv' },
            three: { path: '/mnt/flux', configMapName: 'cm', items: { '': 'x' } },
          },
        }),
      ],
    }),
    problems: [
      [
        'spec.containers[0].volumes[flux-operator-state]',
        /^volume names starting with flux-operator- are the operator's own/,
      ],
      ['spec.containers[0].volumes[three].items', /^keys must not be empty/],
      ['spec.containers[0].volumes[two].path', /^is also the path of spec\.containers\[0\]\.volumes\[one\]/],
      [
        'spec.containers[0].volumes[three].path',
        /^is where the operator mounts its own files in the Flux container/,
      ],
    ],
  },
];

const texts: Case[] = [
  {
    name: 'a batch command of comments only',
    input: miniCluster({ containers: [fluxContainer({ batch: true, command: '# one\n  \u3000# two\n' })] }),
    problems: [['spec.containers[0].command', /^has no line to submit with batch: true/]],
  },
  {
    name: 'NUL characters in hooks, paths, options and documents',
    input: miniCluster({
      containers: [
        fluxContainer({ workingDir: '/a\0', commands: { pre: '\0' }, lifeCycle: { preStopExec: '\0' } }),
      ],
      flux: { optionFlags: '-o\0', brokerConfig: '\0', installRoot: '/\0' },
      archive: { path: '/\0' },
    }),
    problems: [
      ['spec.containers[0].workingDir', /^must be an absolute path \(starting with \/, no NUL character\)/],
      ['spec.containers[0].commands.pre', /^must not contain a NUL character/],
      ['spec.containers[0].lifeCycle.preStopExec', /^must not contain a NUL character/],
      ['spec.flux.optionFlags', /^must not contain a NUL character/],
      ['spec.flux.installRoot', /^must be an absolute path/],
      ['spec.flux.brokerConfig', /^must not contain a NUL character/],
      ['spec.archive.path', /^must be an absolute path/],
    ],
  },
  {
    name: 'a deadline beyond what JavaScript holds exactly',
    input: miniCluster({ deadlineSeconds: 2 ** 53 }),
    problems: [['spec.deadlineSeconds', /^must be <= 9007199254740991/]],
  },
];

describe('validateMiniClusterV1alpha1: what it accepts, the operator can run', () => {
  for (const { name, input, problems } of [...renderThrew, ...hostNames, ...podFields, ...texts]) {
    it(`reports ${name}`, () => assertProblems(input, problems));
  }

  it('counts characters as Kubernetes does: emoji up to maxLength, not twice that', () => {
    const emoji = '😀'.repeat(SCRIPT_MAX_LENGTH);
    assert.ok(
      validateMiniClusterV1alpha1(miniCluster({ containers: [fluxContainer({ command: emoji })] })).ok,
    );
    assertProblems(miniCluster({ containers: [fluxContainer({ command: `${emoji}a` })] }), [
      [
        'spec.containers[0].command',
        new RegExp(`^must have at most ${SCRIPT_MAX_LENGTH} characters; got ${SCRIPT_MAX_LENGTH + 1}$`),
      ],
    ]);
  });

  it('reads null fields as absent, as the API server prunes them', () => {
    const input = miniCluster({ tasks: null as never, pod: { labels: { a: null as never } } });
    const result = validateMiniClusterV1alpha1(input);
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.equal(result.value.spec.tasks, 1);
    assert.deepEqual(result.value.spec.pod?.labels, {});
  });

  it('renders what it accepts at the edges: names at their length limits, whole resources, hostile texts', () => {
    const input: MiniClusterV1alpha1 = miniCluster(
      {
        size: 2,
        maxSize: 10,
        tasks: MAX_TASKS,
        containers: withSidecar({
          resources: { limits: { 'hugepages-2Mi': '4Mi', memory: '1Gi', 'example.com/gpu': '1' } },
        }).map((container, index) =>
          index === 0
            ? {
                ...container,
                batch: true,
                command: '# setup\n echo \'a b\' "$HOME" `id` \u3000\nhostname\u2028',
                commands: { pre: "'\\'' \u0085 😀 \ud800", prefix: 'env A=$B' },
              }
            : container,
        ),
        pod: {
          tolerations: [
            { operator: 'Exists' },
            { key: 'example.com/gpu', value: 'a.b', effect: 'NoExecute', tolerationSeconds: 60 },
          ],
        },
        flux: {
          ...keys,
          optionFlags: "--setattr=x='a b'",
          bursting: { leadBroker, slot: 's'.repeat(61), clusters: [{ name: 's'.repeat(61), size: 10 }, {}] },
        },
      },
      'm'.repeat(61),
    );
    const result = validateMiniClusterV1alpha1(input);
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    const objects = renderMiniCluster(defaultedToV1alpha2(result.value), {
      curveCertificate: CURVE_CERT,
      mungeKey: new Uint8Array(1024),
    });
    assert.deepEqual(
      objects.map((object) => object.kind),
      ['ConfigMap', 'Secret', 'Service', 'Job'],
    );
  });
});
