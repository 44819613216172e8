// The entrypoint with Flux from a view, run under bash with nothing on PATH but bash and coreutils (what
// a plain application image has): stubs of the view's `flux` and `munged` stand in for the view an init
// container copies. Shows that it needs no sed, grep, hostname, getent, useradd, su or runuser, runs
// the brokers as the container's own user (also a uid /etc/passwd does not know), and what it writes.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entrypointScript } from '../../../src/flux/entrypoint.ts';
import type { EntrypointInput } from '../../../src/flux/entrypoint.ts';

/** GNU coreutils' programs (Debian's package): all a plain image has besides bash. */
const COREUTILS = `[ arch b2sum base32 base64 basename basenc cat chcon chgrp chmod chown chroot cksum comm cp
csplit cut date dd df dir dircolors dirname du echo env expand expr factor false fmt fold groups head
hostid id install join link ln logname ls md5sum mkdir mkfifo mknod mktemp mv nice nl nohup nproc
numfmt od paste pathchk pinky pr printenv printf ptx pwd readlink realpath rm rmdir runcon seq sha1sum
sha224sum sha256sum sha384sum sha512sum shred shuf sleep sort split stat stdbuf stty sum sync tac tail
tee test timeout touch tr true truncate tsort tty uname unexpand uniq unlink users vdir wc who whoami
yes`.split(/\s+/);

/** A uid no user database here names (the kind of uid a pod's runAsUser gives). */
const UNKNOWN_UID = 4242;

const sandboxes: string[] = [];
after(() => {
  for (const sandbox of sandboxes) rmSync(sandbox, { recursive: true, force: true });
});

/**
 * The view's `flux`: records its argv and PATH (one record per call), answers `R encode`, runs the
 * initial program of `start` as the broker would (after the options), and `submit` prints the job's
 * output. Only bash and coreutils, like everything the entrypoint runs here.
 */
const FLUX_STUB = String.raw`#!/bin/bash
{ printf 'PATH=%s\037' "$PATH"; for arg in "$@"; do printf '%s\037' "$arg"; done; printf '\036'; } >>"$STUB_DIR/flux-calls"
case "$1" in
  R) echo '{"stub":"R"}' ;;
  submit) shift; while [ "$#" -gt 0 ] && [ "$1" != echo ]; do shift; done; "$@" ;;
  start)
    shift
    # What the broker finds of its certificate when it starts (mode, owner, text).
    { stat -c '%a %u' "$STUB_CERT" && cat "$STUB_CERT"; } >>"$STUB_CERT.at-start" 2>&1
    while [ "$#" -gt 0 ]; do
      case "$1" in
        -o) shift ;;
        --config) shift 2 ;;
        -*) shift ;;
        *) break ;;
      esac
    done
    if [ "$#" -eq 0 ]; then exit "$STUB_WORKER_EXIT"; fi
    "$@"
    ;;
esac
`;

/** The view's munged: records its argv and uid, complains on stderr as munged does on an emptyDir. */
const MUNGED_STUB = String.raw`#!/bin/bash
{ printf 'uid=%s\037' "$(id -u)"; for arg in "$@"; do printf '%s\037' "$arg"; done; printf '\036'; } >>"$STUB_DIR/munged-calls"
echo 'munged: Warning: Logfile is insecure: world-writable permissions without sticky bit set' >&2
exit "$STUB_MUNGED_EXIT"
`;

interface ViewSandbox {
  root: string;
  /** bash and coreutils only. */
  bin: string;
  view: string;
  /** The shared volume (an emptyDir: writable by every uid). */
  shared: string;
}

function makeSandbox(): ViewSandbox {
  const root = mkdtempSync(join(tmpdir(), 'flux-entrypoint-view-'));
  sandboxes.push(root);
  chmodSync(root, 0o755);
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const found = (name: string) => ['/usr/bin', '/bin'].map((dir) => join(dir, name)).find(existsSync);
  for (const name of ['bash', ...COREUTILS]) {
    const program = found(name);
    if (program !== undefined) symlinkSync(program, join(bin, name));
  }
  const shared = join(root, 'mnt', 'flux');
  mkdirSync(shared, { recursive: true });
  chmodSync(shared, 0o777);
  const view = join(shared, 'view');
  mkdirSync(join(view, 'bin'), { recursive: true });
  mkdirSync(join(view, 'sbin'));
  writeFileSync(join(view, 'bin', 'flux'), FLUX_STUB, { mode: 0o755 });
  writeFileSync(join(view, 'sbin', 'munged'), MUNGED_STUB, { mode: 0o755 });
  // The flux-view sidecar's marker: the copy is whole.
  writeFileSync(`${view}.complete`, 'prefix /mnt/flux/view\n');
  // Secret mounts of a view's pod are readable by any uid; the entrypoint keeps private copies.
  mkdirSync(join(root, 'secrets'));
  writeFileSync(join(root, 'secrets', 'curve.cert'), 'CERTIFICATE\n', { mode: 0o444 });
  writeFileSync(join(root, 'secrets', 'munge.key'), 'MUNGEKEY', { mode: 0o444 });
  mkdirSync(join(root, 'config'));
  // The recordings are written by the uid the script runs as.
  for (const file of ['flux-calls', 'munged-calls']) {
    writeFileSync(join(root, file), '');
    chmodSync(join(root, file), 0o666);
  }
  return { root, bin, view, shared };
}

function viewInput(sandbox: ViewSandbox, overrides: Partial<EntrypointInput> = {}): EntrypointInput {
  const { root, shared, view } = sandbox;
  return {
    jobName: 'flux-sample',
    fluxInstallRoot: view,
    view: {
      path: view,
      commandDir: join(shared, 'bin'),
      environmentFile: join(shared, 'flux-view.sh'),
      pythonPath: '/opt/app/python',
      environment: { GREETING: "it's a test", LANG: 'C.UTF-8' },
    },
    paths: {
      configDir: join(root, 'config'),
      curveCertSourcePath: join(root, 'secrets', 'curve.cert'),
      curveCertPath: join(shared, 'curve.cert'),
      resourcePath: join(shared, 'R'),
      runDir: join(shared, 'run', 'flux'),
      stateDir: join(shared, 'state'),
    },
    resource: { writtenBy: 'pod', hostlist: 'flux-sample-[0-1]' },
    munge: {
      keySourcePath: join(root, 'secrets', 'munge.key'),
      keyPath: join(shared, 'munge', 'key', 'munge.key'),
      user: '',
      daemon: join(view, 'sbin', 'munged'),
      socketDir: join(shared, 'munge', 'run'),
      seedDir: join(shared, 'munge', 'lib'),
      logDir: join(shared, 'munge', 'log'),
    },
    broker: { tbon: { topology: 'kary:2' }, logLevel: 6, connectTimeout: '5s', size: 2, listedSize: 2 },
    program: { kind: 'submit', command: 'echo hello world', tasks: 1, nodes: 2 },
    workerRestart: { delaySeconds: 0 },
    ...overrides,
  };
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Each `flux` call: the PATH it saw, then its arguments. */
  fluxCalls: { path: string; args: string[] }[];
  mungedCalls: string[][];
}

function records(file: string): string[][] {
  return readFileSync(file, 'utf8')
    .split('\x1e')
    .slice(0, -1)
    .map((record) => record.split('\x1f').slice(0, -1));
}

/** Runs the script as `uid` (the current user by default) with bash and coreutils only on PATH. */
function run(
  sandbox: ViewSandbox,
  input: EntrypointInput,
  hostname: string,
  options: { uid?: number; env?: Record<string, string>; markerAfterInit?: boolean } = {},
): Run {
  const script = join(sandbox.root, 'entrypoint.sh');
  writeFileSync(script, entrypointScript(input), { mode: 0o755 });
  // `uname -n` is how the script learns its hostname: a stub of it, beside coreutils.
  writeFileSync(join(sandbox.bin, 'uname.stub'), `#!${join(sandbox.bin, 'bash')}\necho ${hostname}\n`, {
    mode: 0o755,
  });
  rmSync(join(sandbox.bin, 'uname'), { force: true });
  symlinkSync(join(sandbox.bin, 'uname.stub'), join(sandbox.bin, 'uname'));
  if (options.uid !== undefined) chownSync(join(sandbox.root, 'config'), options.uid, options.uid);
  // The sidecar's copy ending while the entrypoint waits: once the init hook (which runs before the
  // wait) made the file `waiting`, and a while later, the marker is written, and whether Flux had run
  // by then is noted in `before-marker`.
  if (options.markerAfterInit) {
    const copy = [
      '-c',
      'n=0; until [ -e "$1/waiting" ] || [ "$n" -ge 2000 ]; do sleep 0.01; n=$((n + 1)); done; sleep 0.3; ' +
        'if [ -s "$1/flux-calls" ]; then echo "flux ran" >"$1/before-marker"; else echo "no flux" >"$1/before-marker"; fi; ' +
        'printf "prefix /mnt/flux/view\\n" >"$2"',
      'with-copy',
      sandbox.root,
      `${sandbox.view}.complete`,
    ];
    spawn(join(sandbox.bin, 'bash'), copy, { stdio: 'ignore', env: { PATH: sandbox.bin } }).unref();
  }
  const result = spawnSync(join(sandbox.bin, 'bash'), [script], {
    encoding: 'utf8',
    timeout: 20_000,
    env: {
      PATH: sandbox.bin,
      STUB_DIR: sandbox.root,
      STUB_CERT: join(sandbox.shared, 'curve.cert'),
      STUB_WORKER_EXIT: '0',
      STUB_MUNGED_EXIT: '0',
      ...options.env,
    },
    ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {}),
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    fluxCalls: records(join(sandbox.root, 'flux-calls')).map(([path = '', ...args]) => ({
      path: path.replace(/^PATH=/, ''),
      args,
    })),
    mungedCalls: records(join(sandbox.root, 'munged-calls')),
  };
}

function startArgs(sandbox: ViewSandbox): string[] {
  const { root, shared } = sandbox;
  return [
    'start',
    '-o',
    '--config',
    join(root, 'config'),
    '-Stbon.topo=kary:2',
    `-Srundir=${shared}/run/flux`,
    `-Sstatedir=${shared}/state`,
    `-Slocal-uri=local://${shared}/run/flux/local`,
    '-Slog-stderr-level=6',
    '-Stbon.connect_timeout=5s',
  ];
}

describe('entrypoint with Flux from a view: static checks', () => {
  it('passes shellcheck and bash -n with every view parameter', () => {
    const sandbox = makeSandbox();
    const variants: EntrypointInput[] = [
      viewInput(sandbox),
      viewInput(sandbox, {
        logging: { quiet: true, strict: true, debug: true, timed: true },
        workerRestart: { delaySeconds: 5, completeWorkers: true },
        makeDirs: ['/tmp/fluxout', '/out dir'],
        archivePath: '/data/archive',
        broker: {
          tbon: { topology: 'kary:0' },
          logLevel: 3,
          connectTimeout: '5s',
          size: 4,
          listedSize: 4,
          quorum: 2,
          defaultLocalUri: true,
        },
      }),
    ];
    for (const variant of variants) {
      const script = entrypointScript(variant);
      const shellcheck = spawnSync('shellcheck', ['-s', 'bash', '-'], { input: script, encoding: 'utf8' });
      assert.equal(shellcheck.error, undefined, 'shellcheck must be installed');
      assert.equal(shellcheck.status, 0, shellcheck.stdout);
      assert.equal(spawnSync('bash', ['-n'], { input: script }).status, 0);
    }
  });

  it('rejects view inputs that would make a broken script', () => {
    const sandbox = makeSandbox();
    const view = {
      ...viewInput(sandbox).view,
      environment: { 'dotted.name': 'x' },
    } as EntrypointInput['view'];
    assert.throws(() => entrypointScript(viewInput(sandbox, { view })), /"dotted.name" is not a shell name/);
    assert.throws(
      () => entrypointScript(viewInput(sandbox, { makeDirs: ['relative'] })),
      /makeDirs\[0\] must be an absolute path/,
    );
    const munge = { ...viewInput(sandbox).munge, daemon: undefined } as unknown as EntrypointInput['munge'];
    assert.throws(() => entrypointScript(viewInput(sandbox, { munge })), /munge.user must name/);
  });
});

describe('entrypoint with Flux from a view, with bash and coreutils only', () => {
  it('lead: runs the view`s flux by its name as this user, with its munged, and the job`s output', () => {
    const sandbox = makeSandbox();
    const { shared, view, bin } = sandbox;
    const result = run(sandbox, viewInput(sandbox), 'flux-sample-0');
    assert.equal(result.status, 0, result.stderr);
    // `flux` first (a link into the view), the image's programs next, the view's bin last.
    const path = `${shared}/bin:${bin}:${view}/bin`;
    assert.deepEqual(result.fluxCalls, [
      { path, args: ['R', 'encode', '--hosts=flux-sample-[0-1]', '--local'] },
      {
        path,
        args: [...startArgs(sandbox), 'bash', '-c', 'flux submit --quiet --watch -n 1 echo hello world'],
      },
      { path, args: ['submit', '--quiet', '--watch', '-n', '1', 'echo', 'hello', 'world'] },
    ]);
    assert.match(result.stdout, /^hello world$/m);
    assert.match(result.stdout, /running Flux as this container's user \(uid \d+\)/);
    assert.equal(statSync(join(shared, 'bin', 'flux')).ino, statSync(join(view, 'bin', 'flux')).ino);
    // munged from the view, told every place, its complaints in its own file.
    assert.deepEqual(result.mungedCalls, [
      [
        `uid=${process.getuid?.()}`,
        '--force',
        `--key-file=${shared}/munge/key/munge.key`,
        `--socket=${shared}/munge/run/munge.socket.2`,
        `--pid-file=${shared}/munge/run/munged.pid`,
        `--log-file=${shared}/munge/log/munged.log`,
        `--seed-file=${shared}/munge/lib/munged.seed`,
      ],
    ]);
    assert.doesNotMatch(result.stderr, /munged/);
    assert.match(readFileSync(join(shared, 'munge', 'log', 'munged.stderr'), 'utf8'), /insecure/);
    assert.equal(statSync(join(shared, 'munge', 'key', 'munge.key')).mode & 0o777, 0o400);
    assert.equal(statSync(join(shared, 'munge', 'run')).mode & 0o777, 0o755);
    // The broker's private copy of the certificate, gone once the broker ended.
    assert.equal(
      readFileSync(join(sandbox.shared, 'curve.cert.at-start'), 'utf8'),
      `400 ${process.getuid?.()}\nCERTIFICATE\n`,
    );
    assert.equal(existsSync(join(shared, 'curve.cert')), false);
    assert.equal(readFileSync(join(shared, 'R'), 'utf8'), '{"stub":"R"}\n');
    // The environment file: what a user of `kubectl exec` sources to reach this instance.
    assert.equal(
      readFileSync(join(shared, 'flux-view.sh'), 'utf8'),
      [
        `export PATH=${path}`,
        'export PYTHONPATH=/opt/app/python',
        `export fluxsocket=local://${shared}/run/flux/local`,
        "export GREETING=it\\'s\\ a\\ test",
        'export LANG=C.UTF-8',
        '',
      ].join('\n'),
    );
  });

  it('as a uid /etc/passwd does not know: the same, nothing created, everything its own', () => {
    const sandbox = makeSandbox();
    const result = run(sandbox, viewInput(sandbox), 'flux-sample-0', { uid: UNKNOWN_UID });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`running Flux as this container's user \\(uid ${UNKNOWN_UID}\\)`));
    assert.match(result.stdout, /^hello world$/m);
    assert.equal(result.mungedCalls[0]?.[0], `uid=${UNKNOWN_UID}`);
    for (const file of ['R', 'state', 'run/flux', 'munge/key/munge.key']) {
      assert.equal(statSync(join(sandbox.shared, file)).uid, UNKNOWN_UID, file);
    }
    assert.equal(
      readFileSync(join(sandbox.shared, 'curve.cert.at-start'), 'utf8'),
      `400 ${UNKNOWN_UID}\nCERTIFICATE\n`,
    );
  });

  it('RESTful: refuses to start, before any broker or munged, where the container is not root (the jobs would hold the keys)', () => {
    const sandbox = makeSandbox();
    for (const hostname of ['flux-sample-0', 'flux-sample-1']) {
      const result = run(
        sandbox,
        viewInput(sandbox, { fluxUser: { name: 'flux', uid: 1000 }, keepSecretsFromJobs: true }),
        hostname,
        { uid: UNKNOWN_UID },
      );
      assert.equal(result.status, 1, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          `^flux-operator: error: this MiniCluster serves the RESTful API, and this container runs as uid ${UNKNOWN_UID}, not root, so the jobs would run as the user that holds the keys: .* Start the Flux container as root`,
          'm',
        ),
      );
      assert.deepEqual(result.fluxCalls, []);
      assert.deepEqual(result.mungedCalls, []);
    }
    // The same input without the API starts as this user, as a view does.
    assert.equal(run(sandbox, viewInput(sandbox), 'flux-sample-1', { uid: UNKNOWN_UID }).status, 0);
  });

  it('quiet: prints the job`s output only', () => {
    const sandbox = makeSandbox();
    const result = run(sandbox, viewInput(sandbox, { logging: { quiet: true } }), 'flux-sample-0');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, 'hello world\n');
    assert.equal(result.stderr, '');
  });

  it('worker: completeWorkers ends the pod with 0 when its broker fails, without another attempt', () => {
    const sandbox = makeSandbox();
    const input = viewInput(sandbox, { workerRestart: { delaySeconds: 0, completeWorkers: true } });
    const result = run(sandbox, input, 'flux-sample-1', { env: { STUB_WORKER_EXIT: '1' } });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.fluxCalls.filter((call) => call.args[0] === 'start').length, 1);
    assert.match(result.stdout, /exited with status 1: worker done \(workers complete\)/);
  });

  it('lead: restores the archive when it exists, and makes the folders every pod needs', () => {
    const sandbox = makeSandbox();
    const archive = join(sandbox.shared, 'archive.sqlite');
    const outputs = join(sandbox.root, 'fluxout');
    const input = viewInput(sandbox, { archivePath: archive, makeDirs: [outputs] });
    const without = run(sandbox, input, 'flux-sample-0');
    assert.equal(without.status, 0, without.stderr);
    assert.ok(statSync(outputs).isDirectory());
    assert.ok(!(without.fluxCalls[1]?.args ?? []).some((arg) => arg.startsWith('-Scontent.restore')));
    writeFileSync(archive, 'ARCHIVE');
    writeFileSync(join(sandbox.root, 'flux-calls'), '');
    rmSync(join(sandbox.shared, 'munge'), { recursive: true });
    const withArchive = run(sandbox, input, 'flux-sample-0');
    assert.equal(withArchive.status, 0, withArchive.stderr);
    assert.ok(withArchive.fluxCalls[1]?.args.includes(`-Scontent.restore=${archive}`));
  });

  it('fails clearly when the view is not there, and when its munged does not start', () => {
    const sandbox = makeSandbox();
    rmSync(join(sandbox.view, 'bin', 'flux'));
    const missing = run(sandbox, viewInput(sandbox), 'flux-sample-0');
    assert.equal(missing.status, 1);
    assert.match(
      missing.stderr,
      /there is no Flux view at .*\/mnt\/flux\/view \(no bin\/flux\), yet its copy is marked complete: see the flux-view container's log/,
    );

    const other = makeSandbox();
    const failing = run(other, viewInput(other), 'flux-sample-0', { env: { STUB_MUNGED_EXIT: '1' } });
    assert.equal(failing.status, 1);
    assert.match(failing.stderr, /munged: Warning: Logfile is insecure/);
    assert.match(failing.stderr, /munged from the view did not start/);
  });
});

/**
 * A Spack view (the Go operator's layout) as the init container leaves it: the view's libzmq is a link
 * into /opt/software (here `<root>/opt/software`), whose copy is `<shared>/software`; its `flux` fails as
 * the loader would while the link dangles, and records what it ran with.
 */
function makeSpackSandbox(): ViewSandbox & { softwareDir: string; library: string } {
  const sandbox = makeSandbox();
  const softwareDir = join(sandbox.root, 'opt', 'software');
  const packageLib = 'linux-debian12-x86_64/gcc-12.2.0/zeromq-4.3.4-abc/lib';
  mkdirSync(join(sandbox.shared, 'software', packageLib), { recursive: true });
  writeFileSync(join(sandbox.shared, 'software', packageLib, 'libzmq.so.5'), 'ZMQ');
  mkdirSync(join(sandbox.view, 'lib', 'python3.11', 'site-packages'), { recursive: true });
  mkdirSync(join(sandbox.view, 'etc', 'flux', 'rc1.d'), { recursive: true });
  const library = join(sandbox.view, 'lib', 'libzmq.so.5');
  symlinkSync(join(softwareDir, packageLib, 'libzmq.so.5'), library);
  const needsLibrary = `#!/bin/bash
if [ ! -e '${library}' ]; then
  echo 'flux: error while loading shared libraries: libzmq.so.5: cannot open shared object file' >&2
  exit 127
fi
{
  printf 'PYTHONPATH=%s\\n' "\${PYTHONPATH-}"
  printf 'FLUX_RC_EXTRA=%s\\n' "\${FLUX_RC_EXTRA-}"
  printf 'LD_LIBRARY_PATH=%s\\n' "\${LD_LIBRARY_PATH-unset}"
} >"$STUB_DIR/flux-env.$1"
`;
  writeFileSync(join(sandbox.view, 'bin', 'flux'), needsLibrary + FLUX_STUB.replace(/^#!.*\n/, ''), {
    mode: 0o755,
  });
  return { ...sandbox, softwareDir, library };
}

function spackInput(
  sandbox: ReturnType<typeof makeSpackSandbox>,
  view: Partial<NonNullable<EntrypointInput['view']>> = {},
): EntrypointInput {
  const base = viewInput(sandbox);
  const rest: NonNullable<EntrypointInput['view']> = { ...present(base.view) };
  delete rest.pythonPath;
  return {
    ...base,
    view: {
      ...rest,
      spackSoftware: { from: join(sandbox.shared, 'software'), to: sandbox.softwareDir },
      fluxion: true,
      ...view,
    },
  };
}

function present<T>(value: T | undefined): T {
  assert.ok(value !== undefined);
  return value;
}

describe('entrypoint with Flux from a view: waiting for the flux-view sidecar`s copy', () => {
  it('starts Flux only once the copy`s marker is there, and says it waited', () => {
    const sandbox = makeSandbox();
    rmSync(`${sandbox.view}.complete`);
    const waiting = join(sandbox.root, 'waiting');
    const input = viewInput(sandbox, { hooks: { init: `: >${waiting}` } });
    const result = run(sandbox, input, 'flux-sample-0', { markerAfterInit: true });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /the Flux view is in place \(waited \d+ ms or more for its copy\)/);
    assert.equal(readFileSync(join(sandbox.root, 'before-marker'), 'utf8'), 'no flux\n');
    assert.ok(result.fluxCalls.length > 0, 'Flux started');
  });

  it('fails with the copy`s words when the copy failed, and starts nothing', () => {
    const sandbox = makeSandbox();
    rmSync(`${sandbox.view}.complete`);
    const words = 'flux-view-init: the image localhost/flux:0.88.0 is not a Flux view of either layout: ...';
    writeFileSync(`${sandbox.view}.failed`, `${words}\n`);
    const result = run(sandbox, viewInput(sandbox), 'flux-sample-0');
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      `flux-operator: error: the Flux view was not copied (the flux-view container's words): ${words}\n`,
    );
    assert.deepEqual(result.fluxCalls, []);
    assert.deepEqual(result.mungedCalls, []);
  });
});

describe('entrypoint with a Spack view (the Go operator`s layout), with bash and coreutils only', () => {
  it('passes shellcheck with the Spack view`s parameters', () => {
    const script = entrypointScript(spackInput(makeSpackSandbox()));
    assert.match(script, /^flux_view_software=.*\/mnt\/flux\/software$/m);
    const shellcheck = spawnSync('shellcheck', ['-s', 'bash', '-'], { input: script, encoding: 'utf8' });
    assert.equal(shellcheck.status, 0, shellcheck.stdout);
  });

  it('copies the software back to /opt/software before Flux starts, with the view`s Python and Fluxion', () => {
    const sandbox = makeSpackSandbox();
    const { view, shared } = sandbox;
    const result = run(sandbox, spackInput(sandbox), 'flux-sample-0');
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^hello world$/m);
    assert.match(result.stdout, /the Flux view is a Spack view \(the Go Flux Operator's layout\)/);
    assert.equal(readFileSync(sandbox.library, 'utf8'), 'ZMQ');
    const site = `${view}/lib/python3.11/site-packages`;
    assert.equal(
      readFileSync(join(sandbox.root, 'flux-env.start'), 'utf8'),
      `PYTHONPATH=${site}\nFLUX_RC_EXTRA=${view}/etc/flux/rc1.d\nLD_LIBRARY_PATH=unset\n`,
    );
    // The view's lib for users of `kubectl exec`, not for the brokers and their jobs.
    const environment = readFileSync(join(shared, 'flux-view.sh'), 'utf8');
    assert.match(environment, new RegExp(`^export PYTHONPATH=${site}$`, 'm'));
    assert.match(environment, new RegExp(`^export LD_LIBRARY_PATH=${view}/lib$`, 'm'));
  });

  it('keeps flux.container.pythonPath, and leaves Fluxion`s rc1.d out with scheduler.simple', () => {
    const sandbox = makeSpackSandbox();
    const input = spackInput(sandbox, { pythonPath: '/opt/app/python', fluxion: false });
    const result = run(sandbox, input, 'flux-sample-0', { env: { PYTHONPATH: '/image/python' } });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(
      readFileSync(join(sandbox.root, 'flux-env.start'), 'utf8'),
      'PYTHONPATH=/image/python:/opt/app/python\nFLUX_RC_EXTRA=\nLD_LIBRARY_PATH=unset\n',
    );
  });

  it('without the software copy, Flux does not start (what the copy is for)', () => {
    const sandbox = makeSpackSandbox();
    rmSync(join(sandbox.shared, 'software'), { recursive: true });
    // No software folder: this project's layout, nothing copied, and the view's flux cannot load.
    const result = run(sandbox, spackInput(sandbox), 'flux-sample-0');
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /libzmq\.so\.5: cannot open shared object file/);
    assert.doesNotMatch(result.stdout, /Spack view/);
    assert.doesNotMatch(readFileSync(join(sandbox.shared, 'flux-view.sh'), 'utf8'), /LD_LIBRARY_PATH/);
  });

  it('fails naming the fix when this user cannot write /opt/software', () => {
    const sandbox = makeSpackSandbox();
    // /opt of the image: root's, not writable by the container's uid.
    mkdirSync(join(sandbox.root, 'opt'), { mode: 0o755 });
    const result = run(sandbox, spackInput(sandbox), 'flux-sample-0', { uid: UNKNOWN_UID });
    assert.equal(result.status, 1);
    assert.match(
      result.stderr,
      new RegExp(
        `error: the Flux view is a Spack view \\(the Go Flux Operator's layout\\), whose programs load their libraries from ${sandbox.softwareDir}, and this container \\(uid ${UNKNOWN_UID}\\) cannot write there \\(mkdir: .*Permission denied\\): run the container as root \\(securityContext runAsUser: 0\\), or mount a writable volume at ${sandbox.softwareDir}`,
      ),
    );
    assert.deepEqual(result.fluxCalls, []);
  });
});
