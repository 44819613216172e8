/**
 * v1alpha1 MiniClusters that together set every field of the v1alpha1 schema to a valid value (and
 * one that sets the fields v1alpha1 refuses), for the conversion tests.
 */
import type { MiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';
import {
  everyFieldStatus,
  joiningFlux,
  leadBursting,
  podPlacement,
  restfulFields,
  runnerCommands,
} from './every-field-parts.ts';

const IMAGE = 'localhost/flux:0.88.0';

type Volumes = NonNullable<MiniClusterV1alpha1['spec']['containers'][number]['volumes']>;

/** One volume of each source, named `<prefix>-<source>`, mounted under `/<prefix>`. */
export function volumesOfEverySource(prefix: string): Volumes {
  return {
    [`${prefix}-config`]: { path: `/${prefix}/config`, configMapName: 'config', items: { key: 'file.txt' } },
    [`${prefix}-secret`]: { path: `/${prefix}/secret`, secretName: 'secret', readOnly: true },
    [`${prefix}-claim`]: { path: `/${prefix}/claim`, claimName: 'claim' },
    [`${prefix}-host`]: { path: `/${prefix}/host`, hostPath: '/srv/host' },
    [`${prefix}-shm`]: {
      path: `/${prefix}/shm`,
      emptyDir: true,
      emptyDirMedium: 'Memory',
      emptyDirSizeLimit: '1Gi',
    },
  };
}

function base(name: string, spec: Partial<MiniClusterV1alpha1['spec']>): MiniClusterV1alpha1 {
  return {
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: { name, namespace: 'default' },
    spec: { size: 2, containers: [{ image: IMAGE, command: 'hostname' }], ...spec },
  };
}

/** A lead MiniCluster: every container, pod, storage, Flux and burst field, and a status. */
export function everyFieldV1alpha1(): MiniClusterV1alpha1 {
  const resources = { limits: { memory: '1Gi', 'example.com/gpu': 1 }, requests: { memory: '512Mi' } };
  const miniCluster = base('every-field', {
    size: 2,
    maxSize: 4,
    autoscale: { minSize: 1, idleSeconds: 30, pollSeconds: 5, drainSeconds: 120 },
    tasks: 4,
    interactive: false,
    deadlineSeconds: 3600,
    jobLabels: { job: 'label' },
    containers: [
      {
        name: 'runner',
        image: IMAGE,
        command: 'echo one\necho two',
        workingDir: '/work',
        environment: { MODE: 'test' },
        secrets: { TOKEN: { name: 'token', key: 'value' } },
        ports: [8080],
        resources,
        runFlux: true,
        fluxUser: { name: 'flux', uid: 1000 },
        cores: 2,
        imagePullSecret: 'pull',
        pullAlways: false,
        launcher: false,
        batch: true,
        batchRaw: false,
        volumes: { data: { path: '/data', readOnly: true }, ...volumesOfEverySource('own') },
        existingVolumes: volumesOfEverySource('existing'),
        commands: runnerCommands(),
        lifeCycle: { postStartExec: 'true', preStopExec: 'true' },
        securityContext: { privileged: false, addCapabilities: ['SYS_PTRACE'] },
      },
      { name: 'sidecar', image: 'busybox:1.36', command: 'sleep 10' },
    ],
    services: [
      {
        name: 'web',
        image: 'nginx',
        command: 'nginx',
        workingDir: '/srv',
        environment: { A: 'b' },
        secrets: { PASSWORD: { name: 'web', key: 'password' } },
        ports: [80],
        resources,
        imagePullSecret: 'pull',
        pullAlways: true,
        volumes: volumesOfEverySource('own'),
        existingVolumes: volumesOfEverySource('existing'),
        lifeCycle: { postStartExec: 'true', preStopExec: 'true' },
        securityContext: { privileged: false, addCapabilities: ['NET_ADMIN'] },
        runFlux: false,
        launcher: false,
        batch: false,
        batchRaw: false,
        diagnostics: false,
      },
    ],
    logging: { quiet: true, strict: false, debug: true, zeromq: true, timed: true },
    network: { headlessName: 'every', sharedSelector: { group: 'g' } },
    pod: { ...podPlacement(), resources: { cpu: 4 }, shmSize: '256Mi' },
    shareProcessNamespace: true,
    flux: {
      optionFlags: '-ompi=openmpi@5',
      logLevel: 7,
      connectTimeout: '10s',
      wrap: 'strace,-e,network',
      submitCommand: 'flux submit',
      topology: 'kary:2',
      installRoot: '/usr',
      curveCertSecret: 'curve',
      mungeSecret: 'munge',
      brokerConfig: '[bootstrap]\ndefault_connect = "tcp://%h.every.default.svc.cluster.local:%p"\n',
      minimalService: false,
      scheduler: { queuePolicy: 'easy' },
      bursting: leadBursting(),
    },
    archive: { path: '/archive/flux.sqlite' },
    volumes: {
      data: {
        storageClass: 'csi-store',
        capacity: '1Gi',
        delete: false,
        labels: { tier: 'data' },
        annotations: { a: 'b' },
        claimAnnotations: { c: 'd' },
        driver: 'gcs.csi.ofek.dev',
        volumeHandle: 'bucket',
        attributes: { bucketName: 'b' },
        secret: 'csi-secret',
      },
    },
    cleanup: true,
  });
  miniCluster.metadata = {
    ...miniCluster.metadata,
    generation: 3,
    uid: '7d5c1c1e-0000-4000-8000-000000000001',
    labels: { team: 'a' },
    annotations: { note: 'kept' },
  };
  miniCluster.status = everyFieldStatus();
  return miniCluster;
}

/** No command, not interactive: the RESTful API, with its users. */
export function restfulV1alpha1(): MiniClusterV1alpha1 {
  return base('restful', { containers: [{ image: IMAGE }], ...restfulFields() });
}

/** RESTful without saying so: no command, not interactive, no fluxRestful. */
export function impliedRestfulV1alpha1(): MiniClusterV1alpha1 {
  return base('implied', { containers: [{ image: IMAGE }], users: [{ name: 'you' }] });
}

/** The external side of a burst. */
export function joiningV1alpha1(): MiniClusterV1alpha1 {
  return base('joiner', { flux: joiningFlux() });
}

/** Connected to another MiniClusterV1alpha1; and one with a burst hostlist and a minimal Service. */
export function connectedV1alpha1(): MiniClusterV1alpha1 {
  return base('connected', { flux: { bootServer: 'first', bootServerSize: 2 } });
}

export function hostlistV1alpha1(): MiniClusterV1alpha1 {
  return base('hostlist', {
    flux: { minimalService: true, bursting: { hostlist: 'hostlist-[0-1],burst-0-[0-3]' } },
  });
}

/** The fields v1alpha1 declares only to refuse them (not a valid MiniClusterV1alpha1). */
export function refusedV1alpha1(): MiniClusterV1alpha1 {
  return base('refused', {
    containers: [{ image: IMAGE, command: 'hostname', logs: '/var/log/flux', diagnostics: true }],
    services: [
      {
        name: 'web',
        image: 'nginx',
        fluxUser: {},
        cores: 1,
        commands: {},
        logs: '/logs',
      },
    ],
    volumes: { data: { path: '/srv', secretNamespace: 'other' } },
  });
}

export const V1ALPHA1_FIXTURES: (() => MiniClusterV1alpha1)[] = [
  everyFieldV1alpha1,
  restfulV1alpha1,
  impliedRestfulV1alpha1,
  joiningV1alpha1,
  connectedV1alpha1,
  hostlistV1alpha1,
];
