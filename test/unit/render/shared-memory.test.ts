// The brokers' memory-backed /dev/shm (spec.pod.shmSize, docs/mpi.md): the pod volume, which
// containers mount it, its size, and a container's own volume at /dev/shm taking its place.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Deployment, V1PodSpec, V1VolumeMount } from '@kubernetes/client-node';
import type { MiniClusterV1alpha1Spec } from '../../../src/api/index.ts';
import type { MiniClusterSpec } from '../../../src/api/index.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import type { KubeObject } from '../../../src/render/index.ts';
import { VOLUME_SHM, mountsOwnSharedMemory, sharedMemory } from '../../../src/render/volumes.ts';
import { APP_IMAGE, IMAGE, KEYS, defaulted, defaultedV1alpha2, find, present } from './fixtures.ts';

type SpecV1alpha2 = Partial<MiniClusterSpec>;
type Limits = Record<string, string | number>;

const SHM_MOUNT: V1VolumeMount = { name: 'flux-operator-shm', mountPath: '/dev/shm' };

function shmVolume(sizeLimit: string) {
  return { name: 'flux-operator-shm', emptyDir: { medium: 'Memory', sizeLimit } };
}

function podOfObjects(objects: KubeObject[]): V1PodSpec {
  return present(find.job(objects).spec?.template.spec);
}

function podOf(spec: SpecV1alpha2): V1PodSpec {
  return podOfObjects(renderMiniCluster(defaultedV1alpha2(spec), KEYS));
}

function podOfV1alpha1(spec: Partial<MiniClusterV1alpha1Spec>): V1PodSpec {
  return podOfObjects(renderMiniCluster(defaulted(spec), KEYS));
}

/** What a pod has at /dev/shm: the operator's volume (if any), and each container's mounts there. */
function shmOf(pod: V1PodSpec) {
  const atShm = (mounts: V1VolumeMount[] | undefined) =>
    (mounts ?? []).filter((mount) => mount.mountPath === '/dev/shm');
  return {
    volumes: (pod.volumes ?? []).filter((volume) => volume.name === VOLUME_SHM),
    containers: Object.fromEntries(
      [...(pod.initContainers ?? []), ...pod.containers].map((container) => [
        container.name,
        atShm(container.volumeMounts),
      ]),
    ),
  };
}

function fluxWithLimits(limits: Limits) {
  return { image: APP_IMAGE, command: 'hostname', resources: { limits } };
}

describe('the memory-backed /dev/shm of the broker pods', () => {
  it('is there by default: 1Gi, in the Flux container, not in the view`s init container', () => {
    const pod = podOf({});
    assert.deepEqual(shmOf(pod), {
      volumes: [shmVolume('1Gi')],
      containers: { 'flux-view': [], 'flux-sample': [SHM_MOUNT] },
    });
    // After the operator's own volumes, before the containers' (none here); its mount after theirs.
    assert.deepEqual(
      pod.volumes?.map((volume) => volume.name),
      [
        'flux-operator-broker-config',
        'flux-operator-files',
        'flux-operator-curve-cert',
        'flux-operator-munge-key',
        'flux-operator-state',
        'flux-operator-shm',
      ],
    );
    assert.deepEqual(pod.containers[0]?.volumeMounts, [
      { name: 'flux-operator-broker-config', mountPath: '/etc/flux/config', readOnly: true },
      { name: 'flux-operator-files', mountPath: '/flux_operator', readOnly: true },
      { name: 'flux-operator-curve-cert', mountPath: '/etc/flux-operator/curve', readOnly: true },
      { name: 'flux-operator-munge-key', mountPath: '/etc/flux-operator/munge', readOnly: true },
      { name: 'flux-operator-state', mountPath: '/mnt/flux' },
      SHM_MOUNT,
    ]);
  });

  it('unset, is 1Gi or the Flux container`s (or the pod`s) memory limit when smaller, as written', () => {
    const cases: [SpecV1alpha2, string][] = [
      [{ containers: [fluxWithLimits({ memory: '512Mi' })] }, '512Mi'],
      [{ containers: [fluxWithLimits({ memory: '8Gi' })] }, '1Gi'],
      [{ containers: [fluxWithLimits({ memory: '1Gi' })] }, '1Gi'],
      [{ containers: [fluxWithLimits({ memory: '1G' })] }, '1G'],
      [{ containers: [fluxWithLimits({ memory: 268435456 })] }, '268435456'],
      [{ containers: [fluxWithLimits({ cpu: 2 })] }, '1Gi'],
      [{ pod: { resources: { memory: '256Mi' } } }, '256Mi'],
      [{ pod: { resources: { memory: '2Gi' } } }, '1Gi'],
      [
        {
          // A container beside Flux does not lower it: Flux runs the job's tasks in its own container.
          containers: [
            { ...fluxWithLimits({ memory: '4Gi' }), runFlux: true },
            {
              name: 'sidecar',
              image: APP_IMAGE,
              command: 'sleep 1',
              resources: { limits: { memory: '64Mi' } },
            },
          ],
        },
        '1Gi',
      ],
    ];
    for (const [spec, size] of cases) {
      assert.deepEqual(shmOf(podOf(spec)).volumes, [shmVolume(size)], JSON.stringify(spec));
    }
  });

  it('is pod.shmSize when set, as written', () => {
    const cases: [SpecV1alpha2, string][] = [
      [{ pod: { shmSize: '4Gi' }, containers: [fluxWithLimits({ memory: '8Gi' })] }, '4Gi'],
      [{ pod: { shmSize: '8Gi' }, containers: [fluxWithLimits({ memory: '8Gi' })] }, '8Gi'],
      [{ pod: { shmSize: 2147483648 } }, '2147483648'],
      [{ pod: { shmSize: '64Mi' } }, '64Mi'],
      [{ pod: { shmSize: '1.5Gi', resources: { memory: '2Gi' } } }, '1.5Gi'],
    ];
    for (const [spec, size] of cases) {
      const pod = podOf(spec);
      assert.deepEqual(shmOf(pod).volumes, [shmVolume(size)], JSON.stringify(spec));
      assert.deepEqual(pod.containers[0]?.volumeMounts?.at(-1), SHM_MOUNT);
    }
  });

  it('is not there with pod.shmSize 0, nor with hostIPC (the node`s /dev/shm)', () => {
    for (const pod of [
      { shmSize: 0 },
      { shmSize: '0' },
      { hostIPC: true },
      { hostIPC: true, shmSize: 0 },
    ] satisfies SpecV1alpha2['pod'][]) {
      assert.deepEqual(
        shmOf(podOf({ pod })),
        { volumes: [], containers: { 'flux-view': [], 'flux-sample': [] } },
        JSON.stringify(pod),
      );
    }
  });

  it('is mounted in every container of the pod: wrapped, as it is, and with Flux in the image', () => {
    const containers = [
      { name: 'app', image: APP_IMAGE, command: 'hostname', runFlux: true },
      { name: 'wrapped', image: APP_IMAGE, command: 'sleep 1' },
      { name: 'as-it-is', image: APP_IMAGE, command: 'sleep 1', noWrapEntrypoint: true },
    ];
    assert.deepEqual(shmOf(podOf({ containers })), {
      volumes: [shmVolume('1Gi')],
      containers: { 'flux-view': [], app: [SHM_MOUNT], wrapped: [SHM_MOUNT], 'as-it-is': [SHM_MOUNT] },
    });
    const fromImage = podOf({ containers, flux: { container: { disable: true } } });
    assert.deepEqual(shmOf(fromImage), {
      volumes: [shmVolume('1Gi')],
      containers: { app: [SHM_MOUNT], wrapped: [SHM_MOUNT], 'as-it-is': [SHM_MOUNT] },
    });
    // A container that runs as it is, without the view, mounts /dev/shm alone.
    assert.deepEqual(fromImage.containers.find((container) => container.name === 'as-it-is')?.volumeMounts, [
      SHM_MOUNT,
    ]);
  });

  it('gives way to a container`s own volume at /dev/shm: one mount at one path, the others still get it', () => {
    const pod = podOf({
      containers: [
        {
          name: 'app',
          image: APP_IMAGE,
          command: 'hostname',
          runFlux: true,
          // The Go operator's idiom: an emptyDir without a path is at /dev/shm.
          volumes: { shm: { emptyDir: true, emptyDirMedium: 'memory', emptyDirSizeLimit: '8Gi' } },
        },
        { name: 'wrapped', image: APP_IMAGE, command: 'sleep 1' },
        {
          name: 'own-claim',
          image: APP_IMAGE,
          command: 'sleep 1',
          volumes: { fast: { path: '/dev/shm/', claimName: 'fast' } },
        },
      ],
    });
    assert.deepEqual(shmOf(pod), {
      volumes: [shmVolume('1Gi')],
      containers: {
        'flux-view': [],
        app: [{ name: 'shm', mountPath: '/dev/shm', readOnly: false }],
        wrapped: [SHM_MOUNT],
        'own-claim': [],
      },
    });
    assert.deepEqual(
      pod.containers.find((container) => container.name === 'own-claim')?.volumeMounts?.at(-1),
      { name: 'fast', mountPath: '/dev/shm/', readOnly: false },
    );
    assert.deepEqual(
      pod.volumes?.filter((volume) => volume.emptyDir?.medium === 'Memory'),
      [shmVolume('1Gi'), { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '8Gi' } }],
    );
    for (const container of pod.containers) {
      const paths = (container.volumeMounts ?? []).map((mount) => mount.mountPath.replace(/\/$/, ''));
      assert.equal(new Set(paths).size, paths.length, `${container.name}: two mounts at one path`);
    }
  });

  it('is not in the pod when every container mounts its own at /dev/shm', () => {
    const pod = podOf({
      containers: [{ image: APP_IMAGE, command: 'df /dev/shm', volumes: { mine: { emptyDir: true } } }],
    });
    assert.deepEqual(shmOf(pod), {
      volumes: [],
      containers: {
        'flux-view': [],
        'flux-sample': [{ name: 'mine', mountPath: '/dev/shm', readOnly: false }],
      },
    });
    assert.deepEqual(
      pod.volumes?.filter((volume) => volume.emptyDir !== undefined),
      [
        { name: 'flux-operator-state', emptyDir: {} },
        { name: 'mine', emptyDir: {} },
      ],
    );
  });

  it('is a v1alpha1 MiniCluster`s too, sized by its pod.shmSize, giving way to its emptyDir at /dev/shm', () => {
    assert.deepEqual(shmOf(podOfV1alpha1({})), {
      volumes: [shmVolume('1Gi')],
      containers: { 'flux-sample': [SHM_MOUNT] },
    });
    assert.deepEqual(shmOf(podOfV1alpha1({ pod: { shmSize: '2Gi' } })).volumes, [shmVolume('2Gi')]);
    assert.deepEqual(shmOf(podOfV1alpha1({ pod: { shmSize: 0 } })).volumes, []);
    const own = podOfV1alpha1({
      containers: [
        {
          image: IMAGE,
          command: 'hostname',
          runFlux: true,
          volumes: { shm: { path: '/dev/shm', emptyDir: true, emptyDirMedium: 'Memory' } },
        },
        { name: 'sidecar', image: 'busybox:1.36', command: 'sleep inf' },
      ],
    });
    assert.deepEqual(shmOf(own), {
      volumes: [shmVolume('1Gi')],
      containers: {
        'flux-sample': [{ name: 'shm', mountPath: '/dev/shm', readOnly: false }],
        sidecar: [SHM_MOUNT],
      },
    });
  });

  it('is not in the services pod', () => {
    const objects = renderMiniCluster(
      defaultedV1alpha2({ services: [{ name: 'web', image: 'nginx', command: 'nginx' }] }),
      KEYS,
    );
    const deployment = objects.find((object) => object.kind === 'Deployment') as V1Deployment | undefined;
    const pod = present(deployment?.spec?.template.spec);
    assert.deepEqual(shmOf(pod), { volumes: [], containers: { web: [] } });
  });
});

describe('sharedMemory and mountsOwnSharedMemory', () => {
  it('sharedMemory: the volume and the mount, or nothing', () => {
    assert.deepEqual(sharedMemory(defaultedV1alpha2({ pod: { shmSize: '3Gi' } })), {
      volume: shmVolume('3Gi'),
      mount: SHM_MOUNT,
    });
    assert.equal(sharedMemory(defaultedV1alpha2({ pod: { shmSize: 0 } })), undefined);
  });

  it('mountsOwnSharedMemory: a mount at /dev/shm however it is spelt, nothing else', () => {
    const at = (mountPath: string) => mountsOwnSharedMemory([{ name: 'v', mountPath }]);
    assert.deepEqual(
      [
        '/dev/shm',
        '/dev/shm/',
        '/dev//shm',
        '//dev/shm',
        '/dev/./shm',
        '/dev/shm/x',
        '/dev',
        '/dev/shmx',
        '/',
      ].map(at),
      [true, true, true, true, true, false, false, false, false],
    );
    assert.equal(mountsOwnSharedMemory([]), false);
  });
});
