// Flux from the view (v1alpha2's default): the init container that copies the view into the state
// volume, what the Flux container mounts and runs, and where broker.toml and the entrypoint put things;
// and Flux from the image (flux.container.disable), which renders as a v1alpha1 MiniCluster does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import type { V1Container } from '@kubernetes/client-node';
import { renderMiniCluster } from '../../../src/render/index.ts';
import {
  APP_IMAGE,
  IMAGE,
  KEYS,
  VIEW_IMAGE,
  defaulted,
  defaultedV1alpha2,
  find,
  plain,
  present,
} from './fixtures.ts';

function podOf(spec: Parameters<typeof defaultedV1alpha2>[0]) {
  const objects = renderMiniCluster(defaultedV1alpha2(spec), KEYS);
  return { objects, pod: present(find.job(objects).spec?.template.spec) };
}

function scriptOf(objects: ReturnType<typeof renderMiniCluster>): string {
  return present(find.configMap(objects).data?.['entrypoint.sh']);
}

function brokerConfigOf(objects: ReturnType<typeof renderMiniCluster>) {
  return plain(parse(present(find.configMap(objects).data?.['broker.toml']))) as {
    bootstrap: { curve_cert: string };
    resource: { path: string };
  };
}

/** The init script as the source file has it: the command runs it with the view image's /bin/sh. */
const VIEW_INIT = readFileSync(new URL('../../../src/flux/scripts/view-init.sh', import.meta.url), 'utf8');
const VIEW_SIDECAR = readFileSync(
  new URL('../../../src/flux/scripts/view-sidecar.sh', import.meta.url),
  'utf8',
);

const OPERATOR_MOUNTS = [
  { name: 'flux-operator-broker-config', mountPath: '/etc/flux/config', readOnly: true },
  { name: 'flux-operator-files', mountPath: '/flux_operator', readOnly: true },
  { name: 'flux-operator-curve-cert', mountPath: '/etc/flux-operator/curve', readOnly: true },
  { name: 'flux-operator-munge-key', mountPath: '/etc/flux-operator/munge', readOnly: true },
];
/** The memory-backed /dev/shm every broker container gets (shared-memory.test.ts). */
const SHM_MOUNT = { name: 'flux-operator-shm', mountPath: '/dev/shm' };

describe('Flux from the view', () => {
  it('copies the view in a sidecar (an init container that stays up) into the state volume the Flux container mounts', () => {
    const { pod, objects } = podOf({ size: 2 });
    const expectedInit: V1Container = {
      name: 'flux-view',
      image: VIEW_IMAGE,
      imagePullPolicy: 'IfNotPresent',
      restartPolicy: 'Always',
      command: ['/bin/sh', '/flux_operator/view-sidecar.sh', '/mnt/flux', VIEW_IMAGE],
      terminationMessagePolicy: 'FallbackToLogsOnError',
      volumeMounts: [
        { name: 'flux-operator-files', mountPath: '/flux_operator', readOnly: true },
        { name: 'flux-operator-state', mountPath: '/mnt/flux' },
      ],
    };
    assert.deepEqual(pod.initContainers, [expectedInit]);
    // The script is the ConfigMap's file (mounted with the operator's files), as the source has it.
    // The sidecar's script runs the copy's, beside it.
    assert.equal(find.configMap(objects).data?.['view-init.sh'], VIEW_INIT);
    assert.equal(find.configMap(objects).data?.['view-sidecar.sh'], VIEW_SIDECAR);
    const files = pod.volumes?.find((volume) => volume.name === 'flux-operator-files');
    for (const file of ['view-init.sh', 'view-sidecar.sh']) {
      assert.deepEqual(
        files?.configMap?.items?.find((item) => item.key === file),
        { key: file, path: file, mode: 0o555 },
      );
    }
    const [flux] = pod.containers;
    assert.equal(flux?.image, APP_IMAGE);
    assert.deepEqual(flux?.command, ['/bin/bash', '/flux_operator/entrypoint.sh']);
    assert.deepEqual(flux?.volumeMounts, [
      ...OPERATOR_MOUNTS,
      { name: 'flux-operator-state', mountPath: '/mnt/flux' },
      SHM_MOUNT,
    ]);
    assert.deepEqual(
      pod.volumes?.find((volume) => volume.name === 'flux-operator-state'),
      { name: 'flux-operator-state', emptyDir: {} },
    );
  });

  it('with flux.container.medium Memory, puts the view and the Spack software in a memory volume in every container', () => {
    const { pod } = podOf({
      size: 2,
      flux: { container: { medium: 'Memory', mountPath: '/opt/flux-shared' } },
      containers: [
        { name: 'app', image: APP_IMAGE, command: 'hostname', runFlux: true },
        { name: 'beside', image: APP_IMAGE, command: 'sleep 1', runFlux: false },
        { name: 'as-it-is', image: APP_IMAGE, command: 'sleep 1', runFlux: false, noWrapEntrypoint: true },
      ],
    });
    const stateMounts = [
      { name: 'flux-operator-state', mountPath: '/opt/flux-shared' },
      { name: 'flux-operator-view-memory', mountPath: '/opt/flux-shared/view', subPath: 'view' },
      { name: 'flux-operator-view-memory', mountPath: '/opt/flux-shared/software', subPath: 'software' },
    ];
    const [init] = present(pod.initContainers);
    assert.deepEqual(init?.volumeMounts, [
      { name: 'flux-operator-files', mountPath: '/flux_operator', readOnly: true },
      ...stateMounts,
    ]);
    const [flux, beside, asItIs] = pod.containers;
    assert.deepEqual(flux?.volumeMounts, [...OPERATOR_MOUNTS, ...stateMounts, SHM_MOUNT]);
    assert.deepEqual(beside?.volumeMounts, [
      { name: 'flux-operator-files', mountPath: '/flux_operator', readOnly: true },
      ...stateMounts,
      SHM_MOUNT,
    ]);
    assert.deepEqual(asItIs?.volumeMounts, [...stateMounts, SHM_MOUNT]);
    // The state (certificates, R, Flux's own state) stays on the node's disk; the view alone is in memory.
    assert.deepEqual(
      pod.volumes?.filter(
        (volume) => volume.name.startsWith('flux-operator-state') || volume.name.includes('view'),
      ),
      [
        { name: 'flux-operator-state', emptyDir: {} },
        { name: 'flux-operator-view-memory', emptyDir: { medium: 'Memory' } },
      ],
    );
    // Without it, no memory volume but /dev/shm.
    const onDisk = podOf({ size: 2 }).pod;
    assert.deepEqual(
      onDisk.volumes?.filter((volume) => volume.emptyDir?.medium !== undefined).map((volume) => volume.name),
      ['flux-operator-shm'],
    );
  });

  it('asks for Fluxion`s rc1.d of a Spack view unless flux.scheduler.simple', () => {
    const { objects } = podOf({ flux: { scheduler: { simple: true } } });
    assert.match(scriptOf(objects), /^flux_view_fluxion=''$/m);
  });

  it('mounts the Secrets readable by the container`s user, whatever uid it is', () => {
    const { pod } = podOf({});
    for (const name of ['flux-operator-curve-cert', 'flux-operator-munge-key']) {
      assert.equal(pod.volumes?.find((volume) => volume.name === name)?.secret?.defaultMode, 0o444, name);
    }
  });

  it('runs the brokers from the view as the container`s own user, with the view`s munged', () => {
    const { objects } = podOf({});
    const script = scriptOf(objects);
    assert.match(script, /^flux_user=''$/m);
    assert.match(script, /^flux_uid=''$/m);
    assert.match(script, /^flux_view=\/mnt\/flux\/view$/m);
    assert.match(script, /^flux_command_dir=\/mnt\/flux\/bin$/m);
    assert.match(script, /^flux_environment_file=\/mnt\/flux\/flux-view\.sh$/m);
    assert.match(script, /^munge_daemon=\/mnt\/flux\/view\/sbin\/munged$/m);
    assert.match(script, /^munge_user=''$/m);
    assert.match(script, /^munge_key=\/mnt\/flux\/munge\/key\/munge\.key$/m);
    assert.match(script, /^munge_socket_dir=\/mnt\/flux\/munge\/run$/m);
    // A Spack view's software (the Go operator's layout), when the init container copied one.
    assert.match(script, /^flux_view_software=\/mnt\/flux\/software$/m);
    assert.match(script, /^flux_view_software_dir=\/opt\/software$/m);
    assert.match(script, /^flux_view_fluxion=yes$/m);
    // The rundir is in the shared volume, so containers beside Flux reach its socket.
    assert.match(
      script,
      /^start_args=\(.* -Srundir=\/mnt\/flux\/run\/flux .*-Slocal-uri=local:\/\/\/mnt\/flux\/run\/flux\/local /m,
    );
    const config = brokerConfigOf(objects);
    assert.equal(config.bootstrap.curve_cert, '/mnt/flux/curve/curve.cert');
    assert.equal(config.resource.path, '/mnt/flux/R');
  });

  it('runs a RESTful MiniCluster`s brokers, server and jobs as the flux user, the Secrets root`s alone, the pods refusing to start otherwise', () => {
    const { objects, pod } = podOf({ containers: [{ image: APP_IMAGE }], fluxRestful: {} });
    for (const name of ['flux-operator-curve-cert', 'flux-operator-munge-key', 'flux-operator-restful']) {
      assert.equal(pod.volumes?.find((volume) => volume.name === name)?.secret?.defaultMode, 0o400, name);
    }
    const script = scriptOf(objects);
    assert.match(script, /^flux_user=flux$/m);
    assert.match(script, /^flux_uid=1000$/m);
    assert.match(script, /^keep_secrets_from_jobs=yes$/m);
    // Still Flux from the view, its munged root's.
    assert.match(script, /^flux_view=\/mnt\/flux\/view$/m);
    assert.match(script, /^munge_user=''$/m);
    // Without the API, the container's own user, as before.
    assert.doesNotMatch(scriptOf(podOf({}).objects), /^keep_secrets_from_jobs=/m);
  });

  it('takes the init container`s settings from flux.container', () => {
    const { pod, objects } = podOf({
      flux: {
        container: {
          name: 'copy-flux',
          image: 'registry.example/flux-view:1',
          pullAlways: true,
          workingDir: '/work',
          mountPath: '/opt/flux',
          imagePullSecret: 'view-pull',
          resources: { limits: { cpu: 1, memory: '256Mi' } },
          securityContext: { runAsUser: 1000, runAsNonRoot: true },
          pythonPath: '/opt/app/site-packages',
        },
      },
    });
    assert.deepEqual(pod.initContainers, [
      {
        name: 'copy-flux',
        image: 'registry.example/flux-view:1',
        imagePullPolicy: 'Always',
        restartPolicy: 'Always',
        command: ['/bin/sh', '/flux_operator/view-sidecar.sh', '/opt/flux', 'registry.example/flux-view:1'],
        terminationMessagePolicy: 'FallbackToLogsOnError',
        workingDir: '/work',
        resources: { limits: { cpu: '1', memory: '256Mi' } },
        volumeMounts: [
          { name: 'flux-operator-files', mountPath: '/flux_operator', readOnly: true },
          { name: 'flux-operator-state', mountPath: '/opt/flux' },
        ],
        securityContext: { runAsUser: 1000, runAsNonRoot: true },
      },
    ]);
    assert.deepEqual(pod.imagePullSecrets, [{ name: 'view-pull' }]);
    assert.deepEqual(pod.containers[0]?.volumeMounts?.slice(-2), [
      { name: 'flux-operator-state', mountPath: '/opt/flux' },
      SHM_MOUNT,
    ]);
    const script = scriptOf(objects);
    assert.match(script, /^flux_view=\/opt\/flux\/view$/m);
    assert.match(script, /^flux_python_path=\/opt\/app\/site-packages$/m);
    assert.match(script, /^flux_view_software=\/opt\/flux\/software$/m);
    assert.match(script, /-Srundir=\/opt\/flux\/run\/flux /);
    assert.equal(brokerConfigOf(objects).bootstrap.curve_cert, '/opt/flux/curve/curve.cert');
  });

  it('gives the Flux container flux.environment (its own variables win) and lists shell names in the file', () => {
    const { pod, objects } = podOf({
      flux: { environment: { SHARED: 'from-flux', 'dotted.name': 'x', ONLY_FLUX: 'y' } },
      containers: [{ image: APP_IMAGE, command: 'hostname', environment: { SHARED: 'own' } }],
    });
    assert.deepEqual(pod.containers[0]?.env, [
      { name: 'ONLY_FLUX', value: 'y' },
      { name: 'dotted.name', value: 'x' },
      { name: 'SHARED', value: 'own' },
    ]);
    assert.match(scriptOf(objects), /^flux_environment=\(ONLY_FLUX=y SHARED=from-flux\)$/m);
  });

  it('runs lifecycle hooks with bash, the one shell an application image must have', () => {
    const { pod } = podOf({
      containers: [{ image: APP_IMAGE, command: 'hostname', lifeCycle: { postStartExec: 'echo up' } }],
    });
    assert.deepEqual(pod.containers[0]?.lifecycle, {
      postStart: { exec: { command: ['/bin/bash', '-c', 'echo up'] } },
    });
  });
});

describe('the entrypoint of a v1alpha2 MiniCluster', () => {
  it('ends a failed worker with completeWorkers, and restores the archive on the lead', () => {
    const plainScript = scriptOf(podOf({}).objects);
    assert.doesNotMatch(plainScript, /^complete_workers=/m);
    assert.doesNotMatch(plainScript, /^archive_path=/m);
    const script = scriptOf(
      podOf({ flux: { completeWorkers: true }, archive: { path: '/data/archive.sqlite' } }).objects,
    );
    assert.match(script, /^complete_workers=yes$/m);
    assert.match(script, /^archive_path=\/data\/archive\.sqlite$/m);
    assert.match(script, /^start_args=\(.* -Scontent\.dump=\/data\/archive\.sqlite\)$/m);
  });
});

describe('Flux from the image (flux.container.disable)', () => {
  it('has no init container, and renders as the same MiniCluster in v1alpha1 does', () => {
    const v1alpha2 = renderMiniCluster(
      defaultedV1alpha2({
        size: 2,
        logging: { strict: true },
        network: { disableAffinity: true },
        flux: { container: { disable: true } },
        containers: [{ image: IMAGE, command: 'hostname' }],
      }),
      KEYS,
    );
    const v1alpha1 = renderMiniCluster(defaulted({ size: 2 }), KEYS);
    assert.equal(find.job(v1alpha2).spec?.template.spec?.initContainers, undefined);
    assert.deepEqual(v1alpha2, v1alpha1);
  });
});
