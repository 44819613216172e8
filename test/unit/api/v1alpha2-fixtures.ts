/** Fixture builders for v1alpha2 MiniCluster tests: a valid object, changed by the test that needs it. */
import type { MiniCluster, MiniClusterSpec } from '../../../src/api/schema.ts';
import { validateMiniCluster } from '../../../src/api/validate.ts';
import {
  everyFieldStatus,
  joiningFlux,
  leadBursting,
  podPlacement,
  restfulFields,
  runnerCommands,
} from './every-field-parts.ts';
import { CURVE_CERT, assertProblemsOf } from './fixtures.ts';
import type { ProblemCase } from './fixtures.ts';

export const APP_IMAGE = 'ubuntu:noble';

/** A valid v1alpha2 MiniCluster named `flux-sample` with the given spec fields replaced. */
export function miniClusterV1alpha2(spec: Partial<MiniClusterSpec> = {}, name = 'flux-sample'): MiniCluster {
  return {
    apiVersion: 'flux-framework.org/v1alpha2',
    kind: 'MiniCluster',
    metadata: { name, namespace: 'default' },
    spec: { size: 2, containers: [{ image: APP_IMAGE, command: 'hostname' }], ...spec },
  };
}

/** Asserts the v1alpha2 validator refuses `input` with exactly these problems, in this order. */
export function assertProblemsV1alpha2(input: unknown, expected: ProblemCase['problems']): void {
  assertProblemsOf(validateMiniCluster, input, expected);
}

type VolumesV1alpha2 = NonNullable<MiniClusterSpec['containers'][number]['volumes']>;

/** One volume of each v1alpha2 source (and a scratch directory), named `<prefix>-<source>`. */
export function volumesOfEverySourceV1alpha2(prefix: string): VolumesV1alpha2 {
  return {
    [`${prefix}-config`]: { path: `/${prefix}/config`, configMapName: 'config', items: { key: 'file.txt' } },
    [`${prefix}-secret`]: { path: `/${prefix}/secret`, secretName: 'secret', readOnly: true },
    [`${prefix}-claim`]: { path: `/${prefix}/claim`, claimName: 'claim' },
    [`${prefix}-host`]: { path: `/${prefix}/host`, hostPath: '/srv/host' },
    [`${prefix}-shm`]: { emptyDir: true, emptyDirMedium: 'memory', emptyDirSizeLimit: '1Gi' },
    [`${prefix}-scratch`]: { path: `/${prefix}/scratch` },
    [`${prefix}-csi`]: {
      path: `/${prefix}/csi`,
      csiDriver: 'gcs.csi.ofek.dev',
      csiDriverAttributes: { bucket: 'b' },
    },
  };
}

/**
 * A v1alpha2 MiniCluster that sets every field of the schema (spec and status) to a valid value,
 * the Flux view and the storage of spec.volumes included.
 */
export function everyFieldV1alpha2(): MiniCluster {
  const resources = { limits: { cpu: 2, memory: '1Gi' }, requests: { cpu: '500m', memory: '512Mi' } };
  const securityContext: NonNullable<MiniClusterSpec['containers'][number]['securityContext']> = {
    capabilities: { add: ['SYS_PTRACE'], drop: ['NET_RAW'] },
    privileged: false,
    seLinuxOptions: { user: 'u', role: 'r', type: 't', level: 's0' },
    runAsUser: 0,
    runAsGroup: 0,
    runAsNonRoot: false,
    seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/flux.json' },
    readOnlyRootFilesystem: false,
    allowPrivilegeEscalation: true,
    procMount: 'Default',
  };
  return {
    apiVersion: 'flux-framework.org/v1alpha2',
    kind: 'MiniCluster',
    metadata: {
      name: 'every-field',
      namespace: 'default',
      generation: 3,
      uid: '7d5c1c1e-0000-4000-8000-000000000002',
      labels: { team: 'a' },
      annotations: { note: 'n' },
    },
    spec: {
      size: 2,
      maxSize: 4,
      autoscale: { minSize: 1, idleSeconds: 30, pollSeconds: 5, drainSeconds: 120 },
      minSize: 1,
      backoffLimit: 2,
      tasks: 4,
      interactive: false,
      deadlineSeconds: 3600,
      jobLabels: { job: 'label' },
      containers: [
        {
          name: 'runner',
          image: APP_IMAGE,
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
          imagePullPolicy: 'IfNotPresent',
          launcher: false,
          batch: true,
          batchRaw: false,
          logs: '/tmp/fluxout',
          noWrapEntrypoint: false,
          commands: { ...runnerCommands(), script: 'echo script', servicePre: 'true' },
          lifeCycle: { postStartExec: 'true', preStopExec: 'true' },
          securityContext,
          volumes: { data: { path: '/data', readOnly: true }, ...volumesOfEverySourceV1alpha2('own') },
        },
        {
          name: 'sidecar',
          image: 'busybox:1.36',
          command: 'sleep 10',
          noWrapEntrypoint: true,
          volumes: { scratch: { path: '/scratch' } },
        },
      ],
      services: [
        {
          name: 'web',
          image: 'nginx',
          command: 'nginx -g "daemon off;"',
          workingDir: '/srv',
          environment: { A: 'b' },
          secrets: { PASSWORD: { name: 'web', key: 'password' } },
          ports: [80],
          resources,
          imagePullSecret: 'pull',
          pullAlways: true,
          imagePullPolicy: 'Always',
          volumes: volumesOfEverySourceV1alpha2('own'),
          lifeCycle: { postStartExec: 'true', preStopExec: 'true' },
          securityContext,
        },
      ],
      logging: { quiet: true, strict: true, debug: false, zeromq: false, timed: true },
      network: { headlessName: 'every', sharedSelector: { group: 'g' }, disableAffinity: true },
      pod: {
        ...podPlacement(),
        resources: {},
        restartPolicy: 'Never',
        runtimeClassName: 'gvisor',
        automountServiceAccountToken: false,
        schedulerName: 'default-scheduler',
        nodeAffinity: { 'kubernetes.io/arch': ['amd64', 'arm64'] },
        dnsPolicy: 'ClusterFirst',
        hostIPC: false,
        hostPID: false,
        shmSize: '768Mi',
        securityContext: {
          seLinuxOptions: { user: 'u', role: 'r', type: 't', level: 's0' },
          runAsUser: 0,
          runAsGroup: 0,
          runAsNonRoot: false,
          seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/pod.json' },
          supplementalGroups: [100],
          fsGroup: 100,
          sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
          fsGroupChangePolicy: 'OnRootMismatch',
        },
      },
      shareProcessNamespace: true,
      flux: {
        container: {
          disable: false,
          name: 'flux-view',
          workingDir: '/tmp',
          pythonPath: '/mnt/flux/view/lib/python3.11/site-packages',
          resources,
          imagePullSecret: 'pull',
          image: 'localhost/flux-view:0.88.0',
          pullAlways: false,
          securityContext,
          mountPath: '/mnt/flux',
          medium: 'Memory',
        },
        optionFlags: '-ompi=openmpi@5',
        logLevel: 7,
        connectTimeout: '10s',
        wrap: 'strace,-e,network',
        submitCommand: 'flux submit',
        topology: 'kary:0',
        installRoot: '/usr',
        curveCertSecret: 'curve',
        mungeSecret: 'munge',
        minimalService: false,
        disableSocket: false,
        noWaitSocket: false,
        completeWorkers: true,
        environment: { FLUX_VERBOSE: '1' },
        scheduler: { queuePolicy: 'easy', simple: false },
        bursting: leadBursting(),
      },
      archive: { path: '/archive/flux.sqlite' },
      volumes: {
        data: {
          storageClass: 'hostpath',
          path: '/srv/data',
          capacity: '1Gi',
          delete: false,
          labels: { tier: 'data' },
          annotations: { a: 'b' },
          claimAnnotations: { c: 'd' },
        },
        bucket: {
          storageClass: 'csi-store',
          capacity: '1Gi',
          driver: 'gcs.csi.ofek.dev',
          volumeHandle: 'bucket',
          attributes: { bucketName: 'b' },
          secret: 'csi-secret',
        },
      },
      cleanup: false,
    },
    status: { ...everyFieldStatus(), jobid: 'go-job' },
  };
}

/** The same MiniCluster with a RESTful API instead of a command (fluxRestful and users). */
export function restfulV1alpha2(): MiniCluster {
  return miniClusterV1alpha2({ containers: [{ image: APP_IMAGE }], ...restfulFields() });
}

/** A joining MiniCluster (bursting.leadBroker and slot, curveCert), for the fields the lead cannot set. */
export function joiningV1alpha2(): MiniCluster {
  return miniClusterV1alpha2({ flux: joiningFlux() }, 'joiner');
}

/** A MiniCluster connected to another one (bootServer), and one with a burst hostlist and arch-free flux. */
export function connectedV1alpha2(): MiniCluster {
  return miniClusterV1alpha2({
    flux: { bootServer: 'first', bootServerSize: 2, brokerConfig: '[bootstrap]\n', curveCert: CURVE_CERT },
  });
}

export function hostlistV1alpha2(): MiniCluster {
  return miniClusterV1alpha2({ flux: { bursting: { hostlist: 'flux-sample-[0-1],burst-0-[0-3]' } } });
}

/** The fields v1alpha2 declares only to refuse them (not a valid MiniCluster). */
export function refusedV1alpha2(): MiniCluster {
  const windowsOptions = {
    gmsaCredentialSpecName: 'a',
    gmsaCredentialSpec: 'b',
    runAsUserName: 'c',
    hostProcess: false,
  };
  return miniClusterV1alpha2(
    {
      containers: [{ image: APP_IMAGE, command: 'hostname', securityContext: { windowsOptions } }],
      services: [
        {
          name: 'web',
          image: 'nginx',
          runFlux: true,
          fluxUser: {},
          cores: 1,
          launcher: true,
          batch: true,
          batchRaw: true,
          commands: {},
          logs: '/logs',
          noWrapEntrypoint: true,
          securityContext: { windowsOptions },
        },
      ],
      pod: { securityContext: { windowsOptions } },
      flux: { arch: 'arm64', container: { securityContext: { windowsOptions } } },
      volumes: { data: { path: '/srv', secretNamespace: 'other' } },
    },
    'refused',
  );
}

export const V1ALPHA2_FIXTURES: (() => MiniCluster)[] = [
  everyFieldV1alpha2,
  restfulV1alpha2,
  joiningV1alpha2,
  connectedV1alpha2,
  hostlistV1alpha2,
];
