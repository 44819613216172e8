// spec.pod.shmSize (src/api/shared/shm.ts): the memory limits it must fit in, the size the pods get,
// and the validator's problems, on both versions' specs (the CEL twins are checked at the API server
// with v1alpha2-cases.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shmMemoryLimits, shmSizeLimit, shmSizeProblems } from '../../../../src/api/shared/shm.ts';
import type { ShmSpecView } from '../../../../src/api/shared/shm.ts';

type Limits = Record<string, string | number>;

function spec(pod: ShmSpecView['pod'], ...limits: (Limits | undefined)[]): ShmSpecView {
  const containers = limits.map((container, index) => ({
    runFlux: index === 0,
    ...(container === undefined ? {} : { resources: { limits: container } }),
  }));
  return { pod, containers: containers.length > 0 ? containers : [{ runFlux: true }] };
}

const WHY =
  'what /dev/shm holds counts against that limit, so the processes writing it would be killed before it is full';

describe('shmMemoryLimits', () => {
  it("is the Flux container's memory limit and the pod's, not a sidecar's", () => {
    assert.deepEqual(
      shmMemoryLimits(spec({ resources: { memory: '2Gi', cpu: 1 } }, { cpu: 1 }, { memory: '1Mi' })),
      [{ of: 'the pod', path: 'spec.pod.resources.memory', value: '2Gi' }],
    );
    assert.deepEqual(shmMemoryLimits(spec(undefined, undefined, { memory: 64 }, { memory: '3Gi' })), []);
    assert.deepEqual(
      shmMemoryLimits({
        containers: [
          { runFlux: false, resources: { limits: { memory: '64Mi' } } },
          { runFlux: true, resources: { limits: { memory: 536870912 } } },
        ],
      }),
      [{ of: 'the Flux container', path: 'spec.containers[1].resources.limits.memory', value: 536870912 }],
    );
  });
});

describe('shmSizeLimit', () => {
  it('unset: 1Gi, or the smallest memory limit below it, as written; none with hostIPC', () => {
    const cases: [ShmSpecView, string | undefined][] = [
      [spec(undefined), '1Gi'],
      [spec({}), '1Gi'],
      [spec(undefined, { memory: '512Mi' }), '512Mi'],
      [spec(undefined, { memory: '1073741823' }), '1073741823'],
      [spec(undefined, { memory: '1Gi' }), '1Gi'],
      [spec(undefined, { memory: 1073741825 }), '1Gi'],
      [spec(undefined, { memory: '0.5Gi' }), '0.5Gi'],
      [spec({ resources: { memory: '100M' } }), '100M'],
      [spec({ resources: { memory: '100M' } }, { cpu: 1 }), '100M'],
      // A limit of 0 bounds nothing.
      [spec(undefined, { memory: 0 }), '1Gi'],
      [spec({ hostIPC: true }, { memory: '512Mi' }), undefined],
      [spec({ hostIPC: false }), '1Gi'],
    ];
    for (const [input, expected] of cases) assert.equal(shmSizeLimit(input), expected, JSON.stringify(input));
  });

  it('set: as written, whatever the limits; 0 is none', () => {
    const cases: [ShmSpecView, string | undefined][] = [
      [spec({ shmSize: '4Gi' }, { memory: '512Mi' }), '4Gi'],
      [spec({ shmSize: 8589934592 }), '8589934592'],
      [spec({ shmSize: '64Mi', hostIPC: true }), '64Mi'],
      [spec({ shmSize: 0 }), undefined],
      [spec({ shmSize: '0' }), undefined],
      [spec({ shmSize: '0Gi' }), undefined],
    ];
    for (const [input, expected] of cases) assert.equal(shmSizeLimit(input), expected, JSON.stringify(input));
  });
});

describe('shmSizeProblems', () => {
  it('none when unset, 0, or within every limit', () => {
    for (const input of [
      spec(undefined, { memory: '1Mi' }),
      spec({ shmSize: 0 }, { memory: '1Mi' }),
      spec({ shmSize: '0', hostIPC: true }),
      spec({ shmSize: '1Gi' }, { memory: '1Gi' }),
      spec({ shmSize: '1G' }, { memory: '1Gi' }),
      spec({ shmSize: '2Gi', resources: { memory: '2Gi' } }),
      spec({ shmSize: '2Gi' }, { cpu: 1 }, { memory: '1Mi' }),
    ]) {
      assert.deepEqual(shmSizeProblems(input), [], JSON.stringify(input));
    }
  });

  it('names the field, the limit it exceeds and the fix', () => {
    assert.deepEqual(shmSizeProblems(spec({ shmSize: '1025Mi' }, { memory: '1Gi' })), [
      {
        path: 'spec.pod.shmSize',
        message: `is 1025Mi, more than the memory limit of the Flux container (spec.containers[0].resources.limits.memory: 1Gi): ${WHY}; lower shmSize, or raise spec.containers[0].resources.limits.memory`,
      },
    ]);
    assert.deepEqual(shmSizeProblems(spec({ shmSize: 2000000000, resources: { memory: '1G' } })), [
      {
        path: 'spec.pod.shmSize',
        message: `is 2000000000, more than the memory limit of the pod (spec.pod.resources.memory: 1G): ${WHY}; lower shmSize, or raise spec.pod.resources.memory`,
      },
    ]);
  });

  it('refuses a size with hostIPC, and a value that is no quantity (alone)', () => {
    assert.deepEqual(shmSizeProblems(spec({ shmSize: '1Gi', hostIPC: true })), [
      {
        path: 'spec.pod.shmSize',
        message:
          "sizes the /dev/shm volume the operator mounts, which would hide the node's /dev/shm that hostIPC shares with the pods; remove shmSize (or set it to 0), or remove hostIPC",
      },
    ]);
    assert.deepEqual(shmSizeProblems(spec({ shmSize: 'lots', hostIPC: true }, { memory: '1Gi' })), [
      {
        path: 'spec.pod.shmSize',
        message: 'must be a quantity such as 500m, 2Gi or 4, at most 9007199254740991',
      },
    ]);
  });
});
