// The flux-view init container's command as rendered, run for real with a POSIX sh (dash) and coreutils
// against each layout a view image may have (docs/flux-view.md): this project's (its copy command), the
// Go Flux Operator's (a Spack view under /opt/views/._view and /opt/software), and neither. The image's
// /opt and /usr/local/bin are folders of the test, bound over the host's in a mount namespace of the run
// alone (unshare, as root); the shared volume is a folder of the test, given as flux.container.mountPath.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { KEYS, defaultedV1alpha2, find, present } from './fixtures.ts';

/** A uid no user database here names (what a pod's runAsUser may give). */
const UNKNOWN_UID = 4242;
const SPACK_HASH = 'mlbcu5wcrtrl3wv7bvydlvfh2ztkbbfm';
const PACKAGE_LIB = 'linux-ubuntu22.04-x86_64/gcc-11.4.0/zeromq-4.3.4-abcdef/lib';

const sandboxes: string[] = [];
after(() => {
  for (const sandbox of sandboxes) rmSync(sandbox, { recursive: true, force: true });
});

interface Image {
  root: string;
  /** Bound over /opt. */
  opt: string;
  /** Bound over /usr/local/bin. */
  localBin: string;
  /** The shared volume (an emptyDir: writable by every uid). */
  mount: string;
}

function makeImage(): Image {
  const root = mkdtempSync(join(tmpdir(), 'flux-view-init-'));
  sandboxes.push(root);
  chmodSync(root, 0o755);
  const image = { root, opt: join(root, 'opt'), localBin: join(root, 'local-bin'), mount: join(root, 'mnt') };
  mkdirSync(image.opt);
  mkdirSync(image.localBin);
  mkdirSync(image.mount);
  chmodSync(image.mount, 0o777);
  return image;
}

/** The Go operator's layout: one Spack view whose libzmq is a link into /opt/software. */
function addSpackView(image: Image): void {
  const view = join(image.opt, 'views', '._view', SPACK_HASH);
  mkdirSync(join(view, 'bin'), { recursive: true });
  mkdirSync(join(view, 'lib', 'python3.11', 'site-packages'), { recursive: true });
  writeFileSync(join(view, 'bin', 'flux'), '#!/bin/sh\necho flux\n', { mode: 0o755 });
  symlinkSync(`/opt/software/${PACKAGE_LIB}/libzmq.so.5`, join(view, 'lib', 'libzmq.so.5'));
  symlinkSync(`/opt/views/._view/${SPACK_HASH}`, join(image.opt, 'view'));
  mkdirSync(join(image.opt, 'software', PACKAGE_LIB), { recursive: true });
  writeFileSync(join(image.opt, 'software', PACKAGE_LIB, 'libzmq.so.5'), 'ZMQ');
}

/** This project's layout: its copy command (a stub recording how it was run). */
function addCopyCommand(image: Image): void {
  writeFileSync(
    join(image.localBin, 'flux-view-copy'),
    '#!/bin/sh\necho "flux-view-copy $* as $(id -u)"\nexit "${STUB_EXIT:-0}"\n',
    { mode: 0o755 },
  );
}

function rendered(image: Image, viewImage: string, medium?: 'Memory') {
  return renderMiniCluster(
    defaultedV1alpha2({
      flux: { container: { image: viewImage, mountPath: image.mount, ...(medium ? { medium } : {}) } },
    }),
    KEYS,
  );
}

/** The init container of a MiniCluster with `viewImage`, its volume at the image's mount. */
function initContainer(image: Image, viewImage: string, medium?: 'Memory') {
  const [init] = present(find.job(rendered(image, viewImage, medium)).spec?.template.spec?.initContainers);
  return present(init);
}

/**
 * The view container's command as the pod runs it, its scripts (the ConfigMap's files, mounted at
 * /flux_operator in the pod) written into the image's folder and named there instead. With `copyOnly`,
 * the copy the sidecar runs (view-init.sh, with the same arguments) instead of the sidecar, which
 * stays up.
 */
function commandWithScript(image: Image, viewImage: string, medium?: 'Memory', copyOnly = true): string[] {
  const objects = rendered(image, viewImage, medium);
  const [init] = present(find.job(objects).spec?.template.spec?.initContainers);
  const command = present(present(init).command);
  const [shell, scriptPath, ...args] = command;
  const data = present(find.configMap(objects).data);
  const sidecarFile = present(scriptPath).split('/').at(-1) ?? '';
  for (const file of [sidecarFile, 'view-init.sh']) {
    writeFileSync(join(image.root, file), present(data[file]), { mode: 0o555 });
  }
  return [present(shell), join(image.root, copyOnly ? 'view-init.sh' : sidecarFile), ...args];
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the rendered command as the image would (its /opt and /usr/local/bin), as `uid` when given.
 * With `ownVolumes` (flux.container.medium: Memory), a tmpfs is mounted at each of those folders of
 * the volume first, as the kubelet mounts the view's memory volume there, and `inspect` (a sh
 * command) runs after the copy in the same mount namespace, its output after the command's.
 */
function run(
  image: Image,
  viewImage: string,
  options: {
    uid?: number;
    env?: Record<string, string>;
    ownVolumes?: readonly string[];
    inspect?: string;
  } = {},
): Run {
  const result = spawnSync('unshare', unshareArguments(image, viewImage, options), {
    encoding: 'utf8',
    timeout: 20_000,
    env: { PATH: '/usr/bin:/bin', ...options.env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function unshareArguments(
  image: Image,
  viewImage: string,
  options: { uid?: number; ownVolumes?: readonly string[]; inspect?: string; sidecar?: boolean },
): string[] {
  const medium = options.ownVolumes === undefined ? undefined : 'Memory';
  const command = commandWithScript(image, viewImage, medium, options.sidecar !== true);
  assert.equal(command[0], '/bin/sh');
  const asUser =
    options.uid === undefined
      ? []
      : ['setpriv', `--reuid=${options.uid}`, `--regid=${options.uid}`, '--clear-groups'];
  return [
    '--mount',
    '--propagation',
    'private',
    '/bin/sh',
    '-c',
    [
      'mount --bind "$1" /opt && mount --bind "$2" /usr/local/bin',
      ...(options.ownVolumes ?? []).map(
        (folder) =>
          `mkdir -p "${image.mount}/${folder}" && mount -t tmpfs -o mode=1777 own "${image.mount}/${folder}"`,
      ),
      options.inspect === undefined ? 'shift 2 && exec "$@"' : `shift 2 && "$@" && ${options.inspect}`,
    ].join(' && '),
    'bind-image',
    image.opt,
    image.localBin,
    ...asUser,
    ...command,
  ];
}

describe('the flux-view init container`s command, run against each layout', () => {
  it('runs with the image`s /bin/sh the ConfigMap`s script, and its log ends up in the status when it fails', () => {
    const image = makeImage();
    const init = initContainer(image, 'localhost/flux-view:0.88.0');
    assert.deepEqual(init.command, [
      '/bin/sh',
      '/flux_operator/view-sidecar.sh',
      image.mount,
      'localhost/flux-view:0.88.0',
    ]);
    // A sidecar: the brokers' containers start once it runs, not once it ended.
    assert.equal(init.restartPolicy, 'Always');
    assert.deepEqual(present(init.volumeMounts)[0], {
      name: 'flux-operator-files',
      mountPath: '/flux_operator',
      readOnly: true,
    });
    assert.equal(init.terminationMessagePolicy, 'FallbackToLogsOnError');
  });

  it('this project`s view image: its own copy command, with the mount path, its status passed on', () => {
    const image = makeImage();
    addCopyCommand(image);
    // Both layouts: the copy command wins.
    addSpackView(image);
    const result = run(image, 'localhost/flux-view:0.88.0');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `flux-view-copy ${image.mount} as 0\n`);
    assert.equal(run(image, 'localhost/flux-view:0.88.0', { env: { STUB_EXIT: '2' } }).status, 2);
    assert.deepEqual(readdir(image.mount), []);
  });

  it('the Go operator`s view image: the Spack view and /opt/software into the volume, links kept', () => {
    const image = makeImage();
    addSpackView(image);
    const viewImage = 'ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy';
    for (const attempt of ['first', 'again (a restarted init container)']) {
      const result = run(image, viewImage);
      assert.equal(result.status, 0, `${attempt}: ${result.stderr}`);
      assert.equal(
        result.stdout,
        `flux-view-init: copied the Spack view /opt/views/._view/${SPACK_HASH} of ${viewImage} to ${image.mount}/view and /opt/software to ${image.mount}/software\n`,
      );
      assert.equal(result.stderr, '');
      assert.deepEqual(readdir(image.mount), ['software', 'view', 'view.complete']);
    }
    assert.equal(readFileSync(join(image.mount, 'view', 'bin', 'flux'), 'utf8'), '#!/bin/sh\necho flux\n');
    assert.equal(statSync(join(image.mount, 'view', 'bin', 'flux')).mode & 0o777, 0o755);
    assert.ok(statSync(join(image.mount, 'view', 'lib', 'python3.11', 'site-packages')).isDirectory());
    // The view's link into /opt/software stays a link: the entrypoint puts /opt/software back.
    const link = join(image.mount, 'view', 'lib', 'libzmq.so.5');
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readlinkSync(link), `/opt/software/${PACKAGE_LIB}/libzmq.so.5`);
    assert.equal(readFileSync(join(image.mount, 'software', PACKAGE_LIB, 'libzmq.so.5'), 'utf8'), 'ZMQ');
    assert.equal(
      readFileSync(join(image.mount, 'view.complete'), 'utf8'),
      `layout spack\nimage ${viewImage}\nview /opt/views/._view/${SPACK_HASH}\nsoftware /opt/software\n`,
    );
  });

  it('flux.container.medium Memory: the Spack view and /opt/software into their own volumes, run again too', () => {
    const image = makeImage();
    addSpackView(image);
    const viewImage = 'ghcr.io/converged-computing/flux-view-ubuntu:tag-noble';
    // The kubelet mounts subPaths of the memory volume at view and software, before the init container runs.
    const mounts = present(initContainer(image, viewImage, 'Memory').volumeMounts).map((mount) => [
      mount.mountPath,
      mount.subPath ?? '',
    ]);
    assert.deepEqual(mounts, [
      ['/flux_operator', ''],
      [image.mount, ''],
      [`${image.mount}/view`, 'view'],
      [`${image.mount}/software`, 'software'],
    ]);
    // Run twice in one namespace (a restarted init container finds the first copy in its volumes);
    // then: the file systems, the files, and that nothing was left beside them.
    const inspect = [
      '"$@"',
      `stat -f -c %T "${image.mount}/view" "${image.mount}/software"`,
      `cat "${image.mount}/view/bin/flux" "${image.mount}/software/${PACKAGE_LIB}/libzmq.so.5"`,
      `echo; readlink "${image.mount}/view/lib/libzmq.so.5"`,
      `ls -A "${image.mount}"`,
    ].join(' && ');
    const result = run(image, viewImage, { ownVolumes: ['view', 'software'], inspect });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
    const copied = `flux-view-init: copied the Spack view /opt/views/._view/${SPACK_HASH} of ${viewImage} to ${image.mount}/view and /opt/software to ${image.mount}/software, each into a volume of its own\n`;
    assert.equal(
      result.stdout,
      [
        copied + copied + 'tmpfs\ntmpfs\n#!/bin/sh\necho flux\nZMQ',
        `/opt/software/${PACKAGE_LIB}/libzmq.so.5`,
        'software\nview\nview.complete\n',
      ].join('\n'),
    );
  });

  it('the Go operator`s view image as a uid /etc/passwd does not know: the copy is that uid`s', () => {
    const image = makeImage();
    addSpackView(image);
    const result = run(image, 'ghcr.io/converged-computing/flux-view-rocky:tag-9', { uid: UNKNOWN_UID });
    assert.equal(result.status, 0, result.stderr);
    for (const file of ['view', 'view/bin/flux', 'software', `software/${PACKAGE_LIB}/libzmq.so.5`]) {
      assert.equal(statSync(join(image.mount, file)).uid, UNKNOWN_UID, file);
    }
  });

  it('an image of neither layout: one line naming the image, both layouts and the fix', () => {
    const image = makeImage();
    const result = run(image, 'localhost/flux:0.88.0');
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.split('\n').length, 2, result.stderr);
    assert.match(
      result.stderr,
      /^flux-view-init: the image localhost\/flux:0\.88\.0 is not a Flux view of either layout: /,
    );
    assert.match(result.stderr, /: no \/usr\/local\/bin\/flux-view-copy \(this operator's views\)/);
    assert.match(
      result.stderr,
      / and no Spack view in \/opt\/views\/\._view with \/opt\/software \(the Go operator's views\)/,
    );
    assert.match(
      result.stderr,
      /set flux\.container\.image to a view image, or flux\.container\.disable: true/,
    );
    // Short enough for the MiniCluster's status, which keeps the first 400 characters of its first line.
    assert.ok(result.stderr.length <= 401, `${result.stderr.length} characters`);
  });

  it('a Spack view folder without one view, or without /opt/software, and a volume it cannot write', () => {
    const twoViews = makeImage();
    addSpackView(twoViews);
    mkdirSync(join(twoViews.opt, 'views', '._view', 'another'));
    const two = run(twoViews, 'example/two-views:1');
    assert.equal(two.status, 2);
    assert.match(
      two.stderr,
      /has a Spack view folder \/opt\/views\/\._view .* but not one view in it \(found: /,
    );

    const noSoftware = makeImage();
    addSpackView(noSoftware);
    rmSync(join(noSoftware.opt, 'software'), { recursive: true });
    const missing = run(noSoftware, 'example/no-software:1');
    assert.equal(missing.status, 2);
    assert.match(
      missing.stderr,
      /has a Spack view .* but no \/opt\/software, where its programs load their libraries from/,
    );

    const readOnly = makeImage();
    addSpackView(readOnly);
    chmodSync(readOnly.mount, 0o755);
    const denied = run(readOnly, 'example/view:1', { uid: UNKNOWN_UID });
    assert.equal(denied.status, 1);
    assert.match(
      denied.stderr,
      new RegExp(
        `^flux-view-init: ${readOnly.mount} is not a folder this user \\(uid ${UNKNOWN_UID}\\) may write`,
      ),
    );
    assert.deepEqual(readdir(readOnly.mount), []);
  });
});

/** The sidecar started as the pod runs it; resolves with its status once it ended. */
function startSidecar(image: Image, viewImage: string) {
  const child = spawn('unshare', unshareArguments(image, viewImage, { sidecar: true }), {
    env: { PATH: '/usr/bin:/bin' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A process left behind holding its output would keep 'close' from coming: the streams go too.
  const killer = setTimeout(() => {
    child.kill('SIGKILL');
    child.stdout.destroy();
    child.stderr.destroy();
  }, 20_000);
  const ended = new Promise<Run>((resolve) =>
    child.on('close', (status) => {
      clearTimeout(killer);
      resolve({ status, stdout, stderr });
    }),
  );
  return { child, ended, output: () => stdout };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 10_000) throw new Error(`waited 10 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the flux-view sidecar: the copy, then up until the kubelet stops it', () => {
  it('copies, stays up, and ends with status 0 on SIGTERM (a shell as the first process ignores it otherwise)', async () => {
    const image = makeImage();
    addCopyCommand(image);
    const sidecar = startSidecar(image, 'localhost/flux-view:0.88.0');
    await until('the copy', () => sidecar.output().includes('flux-view-copy'));
    // Up after the copy: still running a while later.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(sidecar.child.exitCode, null, 'the sidecar ended after its copy');
    sidecar.child.kill('SIGTERM');
    const result = await sidecar.ended;
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `flux-view-copy ${image.mount} as 0\n`);
    assert.deepEqual(readdir(image.mount), []);
  });

  it('restarted after a complete copy: keeps it, copies nothing', async () => {
    const image = makeImage();
    addCopyCommand(image);
    writeFileSync(join(image.mount, 'view.complete'), 'prefix /mnt/flux/view\n');
    const sidecar = startSidecar(image, 'localhost/flux-view:0.88.0');
    await until('its first line', () => sidecar.output().includes('\n'));
    sidecar.child.kill('SIGTERM');
    const result = await sidecar.ended;
    assert.equal(result.status, 0, result.stderr);
    assert.equal(
      result.stdout,
      `flux-view-sidecar: ${image.mount}/view.complete is there: the view was copied before this container restarted\n`,
    );
  });

  it('a failed copy: its words in view.failed for the brokers and in the log, the copy`s status', async () => {
    const image = makeImage();
    const result = await startSidecar(image, 'localhost/flux:0.88.0').ended;
    assert.equal(result.status, 2);
    const failed = readFileSync(join(image.mount, 'view.failed'), 'utf8');
    assert.match(
      failed,
      /^flux-view-init: the image localhost\/flux:0\.88\.0 is not a Flux view of either layout: /,
    );
    assert.equal(result.stderr, failed);
    assert.deepEqual(readdir(image.mount), ['view.failed']);
  });

  it('a volume it cannot write: the copy`s own words, no view.failed', async () => {
    const image = makeImage();
    addSpackView(image);
    chmodSync(image.mount, 0o755);
    const child = spawnSync(
      'unshare',
      [...unshareArguments(image, 'example/view:1', { sidecar: true, uid: UNKNOWN_UID })],
      { encoding: 'utf8', timeout: 20_000, env: { PATH: '/usr/bin:/bin' } },
    );
    assert.equal(child.status, 1);
    assert.match(child.stderr, new RegExp(`^flux-view-init: ${image.mount} is not a folder this user`));
    assert.deepEqual(readdir(image.mount), []);
  });
});

function readdir(dir: string): string[] {
  return readdirSync(dir).sort();
}
