// The v1alpha2 fields v1alpha1 has no word for, each as the renderer acts on it: the Job and its pods,
// the entrypoint's parameters, broker.toml, the wrappers of containers beside Flux. That every field
// is acted on, so that the table of fields not acted on yet is empty: v1alpha2-every-field.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'smol-toml';
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { APP_IMAGE, KEYS, defaultedV1alpha2, find, plain, present } from './fixtures.ts';

type Spec = Parameters<typeof defaultedV1alpha2>[0];

function rendered(spec: Spec) {
  const objects = renderMiniCluster(defaultedV1alpha2(spec), KEYS);
  const job = find.job(objects);
  const configMap = find.configMap(objects);
  return {
    objects,
    job,
    pod: present(job.spec?.template.spec) as V1PodSpec,
    data: present(configMap.data),
    script: present(configMap.data?.['entrypoint.sh']),
  };
}

/** The words of the entrypoint's `start_args` (the broker's options), as bash reads the quoted array. */
function startArgs(script: string): string[] {
  const line = present(/^start_args=\((.*)\)$/m.exec(script)?.[1]);
  return line.split(' ');
}

const SIDECAR = { name: 'sidecar', image: APP_IMAGE, command: 'echo beside' };

describe('v1alpha2 fields of the Job and its pods', () => {
  it('backoffLimit is the Job`s (0 unless set)', () => {
    assert.equal(rendered({}).job.spec?.backoffLimit, 0);
    assert.equal(rendered({ backoffLimit: 3 }).job.spec?.backoffLimit, 3);
  });

  it('deadlineSeconds and jobLabels, as in v1alpha1', () => {
    const { job } = rendered({ deadlineSeconds: 600, jobLabels: { team: 'hpc' } });
    assert.equal(job.spec?.activeDeadlineSeconds, 600);
    assert.equal(job.metadata?.labels?.team, 'hpc');
  });

  it('pod: restart policy, scheduler, runtime class, DNS, host namespaces, token and security context', () => {
    const { pod } = rendered({
      pod: {
        restartPolicy: 'OnFailure',
        schedulerName: 'gang',
        runtimeClassName: 'kata',
        dnsPolicy: 'ClusterFirstWithHostNet',
        hostIPC: true,
        hostPID: true,
        automountServiceAccountToken: false,
        securityContext: {
          runAsUser: 1000,
          runAsGroup: 1000,
          fsGroup: 2000,
          supplementalGroups: [3000],
          sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
        },
      },
    });
    assert.equal(pod.restartPolicy, 'OnFailure');
    assert.equal(pod.schedulerName, 'gang');
    assert.equal(pod.runtimeClassName, 'kata');
    assert.equal(pod.dnsPolicy, 'ClusterFirstWithHostNet');
    assert.equal(pod.hostIPC, true);
    assert.equal(pod.hostPID, true);
    assert.equal(pod.automountServiceAccountToken, false);
    assert.deepEqual(pod.securityContext, {
      runAsUser: 1000,
      runAsGroup: 1000,
      supplementalGroups: [3000],
      fsGroup: 2000,
      sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
    });
    const defaults = rendered({}).pod;
    assert.equal(defaults.restartPolicy, 'Never');
    for (const field of ['schedulerName', 'runtimeClassName', 'dnsPolicy', 'hostIPC', 'hostPID'] as const)
      assert.equal(defaults[field], undefined, field);
  });

  it('the brokers prefer one zone and a node each, unless network.disableAffinity; nodeAffinity is required', () => {
    const selector = {
      matchLabels: {
        'app.kubernetes.io/name': 'flux-minicluster',
        'flux-framework.org/minicluster': 'flux-sample',
      },
    };
    assert.deepEqual(rendered({}).pod.affinity, {
      podAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: { labelSelector: selector, topologyKey: 'topology.kubernetes.io/zone' },
          },
        ],
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: { labelSelector: selector, topologyKey: 'kubernetes.io/hostname' },
          },
        ],
      },
    });
    const nodeAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['c2', 'c3'] },
              { key: 'zone', operator: 'In', values: ['a'] },
            ],
          },
        ],
      },
    };
    assert.deepEqual(
      rendered({
        network: { disableAffinity: true },
        pod: { nodeAffinity: { zone: ['a'], 'node.kubernetes.io/instance-type': ['c2', 'c3'] } },
      }).pod.affinity,
      { nodeAffinity },
    );
    assert.equal(rendered({ network: { disableAffinity: true } }).pod.affinity, undefined);
  });

  it('containers: pull policy, Kubernetes` security context and v1alpha2 volumes', () => {
    const { pod } = rendered({
      containers: [
        {
          image: APP_IMAGE,
          command: 'hostname',
          imagePullPolicy: 'Never',
          securityContext: {
            privileged: false,
            capabilities: { add: ['SYS_PTRACE'], drop: ['NET_RAW'] },
            runAsNonRoot: false,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: true,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          volumes: {
            shm: { emptyDir: true, emptyDirMedium: 'memory', emptyDirSizeLimit: '1Gi' },
            scratch: { path: '/scratch' },
            bucket: {
              path: '/bucket',
              csiDriver: 'gcs.csi.ofek.dev',
              csiDriverAttributes: { bucket: 'b' },
              readOnly: true,
            },
            data: { path: '/data', hostPath: '/srv/data' },
            claim: { path: '/claim', claimName: 'data' },
            files: { path: '/files', configMapName: 'inputs', items: { 'in.txt': 'input/in.txt' } },
          },
        },
      ],
    });
    const [flux] = pod.containers as [V1Container];
    assert.equal(flux.imagePullPolicy, 'Never');
    assert.deepEqual(flux.securityContext, {
      privileged: false,
      capabilities: { add: ['SYS_PTRACE'], drop: ['NET_RAW'] },
      runAsNonRoot: false,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const own = (pod.volumes ?? []).filter((volume) => !volume.name.startsWith('flux-operator-'));
    assert.deepEqual(own, [
      {
        name: 'bucket',
        csi: { driver: 'gcs.csi.ofek.dev', readOnly: true, volumeAttributes: { bucket: 'b' } },
      },
      { name: 'claim', persistentVolumeClaim: { claimName: 'data', readOnly: false } },
      { name: 'data', hostPath: { path: '/srv/data' } },
      { name: 'files', configMap: { name: 'inputs', items: [{ key: 'in.txt', path: 'input/in.txt' }] } },
      // Without a source and without a spec.volumes entry of its name: a directory the pod shares.
      { name: 'scratch', emptyDir: {} },
      { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
    ]);
    assert.deepEqual(
      (flux.volumeMounts ?? []).filter((mount) => !mount.name.startsWith('flux-operator-')),
      [
        { name: 'bucket', mountPath: '/bucket', readOnly: true },
        { name: 'claim', mountPath: '/claim', readOnly: false },
        { name: 'data', mountPath: '/data', readOnly: false },
        { name: 'files', mountPath: '/files', readOnly: false },
        { name: 'scratch', mountPath: '/scratch', readOnly: false },
        // An emptyDir without a path is at /dev/shm, where the Go operator mounts every emptyDir.
        { name: 'shm', mountPath: '/dev/shm', readOnly: false },
      ],
    );
  });

  it('a volume without a source named like a spec.volumes entry mounts that storage`s claim', () => {
    const { pod } = rendered({
      volumes: { data: { storageClass: 'hostpath', path: '/tmp/data' } },
      containers: [{ image: APP_IMAGE, command: 'ls /data', volumes: { data: { path: '/data' } } }],
    });
    assert.deepEqual(
      pod.volumes?.find((volume) => volume.name === 'data'),
      { name: 'data', persistentVolumeClaim: { claimName: 'flux-sample.data' } },
    );
  });
});

describe('v1alpha2 fields of the Flux instance', () => {
  it('minSize is the quorum Flux waits for', () => {
    assert.ok(!startArgs(rendered({ size: 4 }).script).some((word) => word.startsWith('-Sbroker.quorum')));
    assert.ok(startArgs(rendered({ size: 4, minSize: 2 }).script).includes('-Sbroker.quorum=2'));
  });

  it('disableSocket leaves the local URI to Flux', () => {
    const uri = (script: string) => startArgs(script).filter((word) => word.startsWith('-Slocal-uri='));
    assert.deepEqual(uri(rendered({}).script), ['-Slocal-uri=local:///mnt/flux/run/flux/local']);
    assert.deepEqual(uri(rendered({ flux: { disableSocket: true } }).script), []);
  });

  it('scheduler.simple makes sched-simple the scheduler, even where Fluxion is installed', () => {
    const toml = (spec: Spec) =>
      plain(parse(present(rendered(spec).data['broker.toml']))) as Record<string, unknown>;
    assert.equal(toml({}).modules, undefined);
    assert.deepEqual(toml({ flux: { scheduler: { simple: true } } }).modules, {
      alternatives: { sched: 'sched-simple', feasibility: 'sched-simple' },
    });
  });

  it('topology, connectTimeout, logLevel, wrap, optionFlags and submitCommand reach the brokers as in v1alpha1', () => {
    const { script } = rendered({
      flux: {
        topology: 'kary:4',
        connectTimeout: '30s',
        logLevel: 7,
        wrap: 'strace,-f',
        optionFlags: '-ompi=openmpi@5',
        submitCommand: 'flux run',
      },
    });
    const words = startArgs(script);
    // Quoted: a bare comma in a bash array reads to shellcheck as a mistaken separator.
    assert.equal(words[0], "'--wrap=strace,-f'");
    for (const word of ['-Stbon.topo=kary:4', '-Stbon.connect_timeout=30s', '-Slog-stderr-level=7'])
      assert.ok(words.includes(word), word);
    assert.match(script, /^program_args=\(bash -c 'flux run -n 1 -N 1 -ompi=openmpi@5 hostname'\)$/m);
  });

  it('commands.script is the Flux container`s job: a file of the ConfigMap, run with bash', () => {
    const { data, pod, script } = rendered({
      containers: [{ image: APP_IMAGE, commands: { script: '#!/bin/bash\necho from the script\n' } }],
    });
    assert.equal(data['script-flux-sample.sh'], '#!/bin/bash\necho from the script\n');
    assert.match(
      script,
      /^program_args=\(bash -c 'flux submit --quiet --watch -n 1 -N 1 \/bin\/bash \/flux_operator\/script-flux-sample\.sh'\)$/m,
    );
    const files = pod.volumes?.find((volume) => volume.name === 'flux-operator-files')?.configMap?.items;
    assert.deepEqual(files?.at(-1), {
      key: 'script-flux-sample.sh',
      path: 'script-flux-sample.sh',
      mode: 0o555,
    });
  });

  it('batch jobs write job-N.out and job-N.err into logs (default /tmp/fluxout), made on every pod', () => {
    const { script } = rendered({
      containers: [{ image: APP_IMAGE, batch: true, logs: '/out', command: 'echo one\necho two' }],
    });
    assert.match(script, /^make_dirs=\(\/out\)$/m);
    assert.match(
      script,
      /flux submit --quiet --flags=waitable --output=\/out\/job-0\.out --error=\/out\/job-0\.err -n 1 echo one/,
    );
    assert.match(
      script,
      /flux submit --quiet --flags=waitable --output=\/out\/job-1\.out --error=\/out\/job-1\.err -n 1 echo two/,
    );
    const defaults = rendered({
      containers: [{ image: APP_IMAGE, batch: true, command: 'echo one' }],
    }).script;
    assert.match(defaults, /^make_dirs=\(\/tmp\/fluxout\)$/m);
    // batchRaw: the lines run as they are, in one `flux batch`.
    const raw = rendered({
      containers: [{ image: APP_IMAGE, batch: true, batchRaw: true, command: 'echo one' }],
    });
    assert.doesNotMatch(raw.script, /^make_dirs=/m);
  });
});

describe('containers beside the Flux container', () => {
  it('are wrapped (unless noWrapEntrypoint) to wait for the pod`s Flux, with the view on PATH', () => {
    const { pod, data } = rendered({
      containers: [
        { image: APP_IMAGE, command: 'hostname', runFlux: true },
        { ...SIDECAR, commands: { servicePre: 'echo pre', post: 'echo post', script: 'echo script' } },
      ],
      flux: { environment: { GREETING: 'hi' } },
    });
    const sidecar = present(pod.containers.find((container) => container.name === 'sidecar'));
    assert.deepEqual(sidecar.command, ['/bin/bash', '/flux_operator/wrapper-sidecar.sh']);
    assert.deepEqual(sidecar.volumeMounts, [
      { name: 'flux-operator-files', mountPath: '/flux_operator', readOnly: true },
      { name: 'flux-operator-state', mountPath: '/mnt/flux' },
      { name: 'flux-operator-shm', mountPath: '/dev/shm' },
    ]);
    assert.deepEqual(sidecar.env, [{ name: 'GREETING', value: 'hi' }]);
    const wrapper = present(data['wrapper-sidecar.sh']);
    for (const line of [
      'container_name=sidecar',
      'flux_view=/mnt/flux/view',
      'flux_command_dir=/mnt/flux/bin',
      'flux_socket=/mnt/flux/run/flux/local',
      'script_path=/flux_operator/script-sidecar.sh',
      "container_command='echo beside'",
      "hook_service_pre='echo pre'",
      "hook_post='echo post'",
    ])
      assert.match(wrapper, new RegExp(`^${line.replaceAll('/', '\\/').replaceAll('.', '\\.')}$`, 'm'), line);
    assert.equal(data['script-sidecar.sh'], 'echo script');
  });

  it('noWaitSocket: the wrapper does not wait; noWrapEntrypoint: the container runs as it is', () => {
    const noWait = rendered({
      containers: [{ image: APP_IMAGE, command: 'hostname', runFlux: true }, SIDECAR],
      flux: { noWaitSocket: true },
    });
    assert.doesNotMatch(present(noWait.data['wrapper-sidecar.sh']), /^flux_socket=/m);
    const asItIs = rendered({
      containers: [
        { image: APP_IMAGE, command: 'hostname', runFlux: true },
        { ...SIDECAR, noWrapEntrypoint: true },
      ],
    });
    const sidecar = present(asItIs.pod.containers.find((container) => container.name === 'sidecar'));
    assert.deepEqual(sidecar.command, ['/bin/sh', '-c', 'echo beside']);
    // The view's volume is there for it all the same, and the pod's /dev/shm.
    assert.deepEqual(sidecar.volumeMounts, [
      { name: 'flux-operator-state', mountPath: '/mnt/flux' },
      { name: 'flux-operator-shm', mountPath: '/dev/shm' },
    ]);
    assert.equal(asItIs.data['wrapper-sidecar.sh'], undefined);
  });

  it('with Flux in the image, a wrapped container finds the Flux rundir in the shared state volume', () => {
    const { pod, data, script } = rendered({
      containers: [{ image: APP_IMAGE, command: 'hostname', runFlux: true }, SIDECAR],
      flux: { container: { disable: true } },
    });
    assert.equal(pod.initContainers, undefined);
    assert.ok(startArgs(script).includes('-Srundir=/mnt/flux/run/flux'));
    assert.match(present(data['wrapper-sidecar.sh']), /^flux_socket=\/mnt\/flux\/run\/flux\/local$/m);
    assert.match(present(data['wrapper-sidecar.sh']), /^flux_install_root=\/usr$/m);
  });
});
