import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { miniClusterCrd } from '../../../src/api/index.ts';
import { validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { assertProblems, fluxContainer, miniCluster, type ProblemCase } from './fixtures.ts';

const mountsData = [fluxContainer({ volumes: { data: { path: '/data' } } })];

const cases: ProblemCase[] = [
  {
    name: 'a container volume without a source naming no spec.volumes entry',
    input: miniCluster({ containers: mountsData }),
    problems: [
      [
        'spec.containers[0].volumes[data]',
        /^has no source, so it names storage of spec\.volumes, which has no entry "data"; add one to spec\.volumes or set one of configMapName, secretName, claimName, hostPath or emptyDir: true$/,
      ],
    ],
  },
  {
    name: 'a container volume with a source of its own under the name of an entry, and an existing volume too',
    input: miniCluster({
      volumes: { data: { path: '/srv/data' } },
      containers: [
        fluxContainer({
          volumes: { data: { path: '/data', emptyDir: true } },
          existingVolumes: { data: { path: '/other', claimName: 'mine' } },
        }),
      ],
    }),
    problems: [
      ['spec.containers[0].existingVolumes[data]', /is also in spec\.containers\[0\]\.volumes/],
      [
        'spec.containers[0].volumes[data]',
        /^has a source of its own and the name of spec\.volumes\[data\]; a pod volume name means one volume: rename one of them, or remove the source to mount spec\.volumes\[data\]$/,
      ],
      ['spec.containers[0].existingVolumes[data]', /^has the name of spec\.volumes\[data\]; /],
    ],
  },
  {
    name: 'an existingVolumes entry without a source (it cannot name storage of spec.volumes)',
    input: miniCluster({
      volumes: { data: { path: '/srv/data' } },
      containers: [fluxContainer({ existingVolumes: { other: { path: '/other' } } })],
    }),
    problems: [
      [
        'spec.containers[0].existingVolumes[other]',
        /^has no source; set one of .*\(storage of spec\.volumes is mounted from volumes\)$/,
      ],
    ],
  },
  {
    name: 'a hostpath entry without path, with a driver; CSI fields without a driver; secretNamespace; zero capacity',
    input: miniCluster({
      volumes: {
        data: { driver: 'gcs.csi.ofek.dev', capacity: '0' },
        other: { storageClass: 'standard', volumeHandle: 'h', secret: 's', secretNamespace: 'default' },
      },
      containers: [fluxContainer({ volumes: { data: { path: '/data' }, other: { path: '/other' } } })],
    }),
    problems: [
      ['spec.volumes[data].path', /^is required for a hostpath volume: the directory of the node it is; /],
      [
        'spec.volumes[data].driver',
        /^is for CSI volumes, and a hostpath volume is a directory of the node; /,
      ],
      ['spec.volumes[data].capacity', /^must be more than zero, e\.g\. 5Gi$/],
      ['spec.volumes[other].volumeHandle', /^applies to CSI volumes only; set driver or remove it$/],
      ['spec.volumes[other].secret', /^applies to CSI volumes only; set driver or remove it$/],
      [
        'spec.volumes[other].secretNamespace',
        /^is a field of the Go Flux Operator's v1alpha1 API \(the namespace of the CSI driver's Secret\) that this operator does not support: .*create the Secret in the MiniCluster's namespace and remove secretNamespace$/,
      ],
    ],
  },
  {
    name: 'entry names that are no pod volume names; operator label keys on the PersistentVolume',
    input: miniCluster({
      volumes: {
        Data: { path: '/srv/a' },
        'flux-operator-x': { path: '/srv/b' },
        ok: { path: '/srv/c', labels: { 'app.kubernetes.io/name': 'x' }, claimAnnotations: { 'a b': 'x' } },
      },
    }),
    problems: [
      ['spec.volumes[Data]', /volume name "Data" must be a DNS label/],
      ['spec.volumes[flux-operator-x]', /are the operator's own; rename it/],
      ['spec.volumes[ok].labels[app.kubernetes.io/name]', /is set by the operator/],
      ['spec.volumes[ok].claimAnnotations[a b]', /must be a label key/],
    ],
  },
];

describe('spec.volumes', () => {
  for (const { name, input, problems } of cases) {
    it(`reports ${name}`, () => assertProblems(input, problems));
  }

  it('defaults an entry as v1alpha1 did: hostpath, 5Gi, delete: true', () => {
    const result = validateMiniClusterV1alpha1(
      miniCluster({ volumes: { data: { path: '/srv/data' } }, containers: mountsData }),
    );
    assert.ok(result.ok);
    assert.deepEqual(result.value.spec.volumes, {
      data: { path: '/srv/data', storageClass: 'hostpath', capacity: '5Gi', delete: true },
    });
  });

  it('accepts the same entry mounted by two containers at different paths, one read-only', () => {
    const result = validateMiniClusterV1alpha1(
      miniCluster({
        volumes: { data: { path: '/srv/data' } },
        containers: [
          fluxContainer({ runFlux: true, volumes: { data: { path: '/data' } } }),
          { name: 'sidecar', image: 'busybox:1.36', volumes: { data: { path: '/in', readOnly: true } } },
        ],
      }),
    );
    assert.deepEqual(result.ok ? [] : result.problems, []);
  });

  it('has CEL twins on the entry and on the spec', () => {
    const spec = miniClusterCrd().spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    const entryRules = (
      spec?.properties?.volumes?.additionalProperties as {
        'x-kubernetes-validations'?: { message: string }[];
      }
    )?.['x-kubernetes-validations'];
    const messages = (entryRules ?? []).map((rule) => rule.message);
    assert.ok(messages.some((message) => message.startsWith('a hostpath volume needs path')));
    assert.ok(
      messages.some((message) => message.startsWith('secretNamespace is a field of the Go Flux Operator')),
    );
    const specMessages = (spec?.['x-kubernetes-validations'] ?? []).map((rule) => rule.message);
    assert.ok(specMessages.some((message) => message.includes('spec.volumes has no entry of that name')));
    assert.ok(specMessages.some((message) => message.includes('has the name of a spec.volumes entry')));
  });
});
