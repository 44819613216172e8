import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  entrypointScript,
  fluxStartWords,
  initialProgramWords,
  sizeFlags,
} from '../../../src/flux/entrypoint.ts';
import type { EntrypointInput, EntrypointPaths } from '../../../src/flux/entrypoint.ts';
import { FLUX_SCRIPTS } from '../../../src/flux/scripts/files.ts';
import { FORGET_CERTIFICATE_RC_PATH, forgetCertificateScript } from '../../../src/flux/rc-scripts.ts';

const fixedPaths: EntrypointPaths = {
  configDir: '/etc/flux/config',
  curveCertSourcePath: '/flux-secrets/curve/curve.cert',
  curveCertPath: '/etc/flux/system/curve.cert',
  resourcePath: '/etc/flux/system/R',
  runDir: '/run/flux',
  stateDir: '/var/lib/flux',
};

/** A lead-and-workers MiniCluster of 2 pods submitting `echo hello`; `overrides` replace whole fields. */
function entrypointInput(overrides: Partial<EntrypointInput> = {}): EntrypointInput {
  return {
    jobName: 'flux-sample',
    fluxInstallRoot: '/usr',
    fluxUser: { name: 'flux', uid: 1000 },
    paths: fixedPaths,
    resource: { writtenBy: 'pod', hostlist: 'flux-sample-[0-1]' },
    broker: { tbon: { fanout: 256 }, logLevel: 6, connectTimeout: '5s', size: 2, listedSize: 2 },
    program: { kind: 'submit', command: 'echo hello', tasks: 2 },
    workerRestart: { delaySeconds: 0 },
    ...overrides,
  };
}

/** The initial program of an instance that stays up after its command (interactive with a command). */
const STAY_UP_PROGRAM = FLUX_SCRIPTS.text('stay-up.sh');

describe('fluxStartWords', () => {
  it('puts wrap first, then the config dir and the broker options', () => {
    assert.deepEqual(
      fluxStartWords(
        entrypointInput({
          broker: {
            tbon: { topology: 'kary:2' },
            logLevel: 7,
            connectTimeout: '30s',
            size: 2,
            listedSize: 6,
            extraOptions: ['-Sbroker.rc2_none'],
            wrap: ['strace', '-e', 'network', '-tt'],
          },
          logging: { zeromq: true },
        }),
      ),
      [
        '--wrap=strace,-e,network,-tt',
        '-o',
        '--config',
        '/etc/flux/config',
        '-Stbon.topo=kary:2',
        '-Srundir=/run/flux',
        '-Sstatedir=/var/lib/flux',
        '-Slocal-uri=local:///run/flux/local',
        '-Slog-stderr-level=7',
        '-Stbon.connect_timeout=30s',
        '-Sbroker.quorum=2',
        '-Stbon.zmqdebug=1',
        '-Sbroker.rc2_none',
      ],
    );
  });

  it('sets no quorum when every listed host starts', () => {
    assert.deepEqual(fluxStartWords(entrypointInput()), [
      '-o',
      '--config',
      '/etc/flux/config',
      '-Stbon.fanout=256',
      '-Srundir=/run/flux',
      '-Sstatedir=/var/lib/flux',
      '-Slocal-uri=local:///run/flux/local',
      '-Slog-stderr-level=6',
      '-Stbon.connect_timeout=5s',
    ]);
  });
});

describe('sizeFlags', () => {
  it('asks for nodes only where Flux takes them: never more nodes than tasks', () => {
    const cases: [number | undefined, number | undefined, string[]][] = [
      [1, 3, ['-n', '1']],
      [2, 3, ['-n', '2']],
      [3, 3, ['-n', '3', '-N', '3']],
      [8, 3, ['-n', '8', '-N', '3']],
      [undefined, 3, ['-N', '3']],
      [4, undefined, ['-n', '4']],
      [undefined, undefined, []],
    ];
    for (const [tasks, nodes, words] of cases) {
      assert.deepEqual(sizeFlags(tasks, nodes), words, `tasks ${tasks}, nodes ${nodes}`);
    }
  });
});

describe('initialProgramWords', () => {
  it('builds each kind of program', () => {
    assert.deepEqual(initialProgramWords({ kind: 'interactive' }), ['sleep', 'inf']);
    assert.deepEqual(
      initialProgramWords({ kind: 'submit', command: 'lmp -in in.reaxc', tasks: 4, nodes: 2 }),
      ['bash', '-c', 'flux submit --quiet --watch -n 4 -N 2 lmp -in in.reaxc'],
    );
    assert.deepEqual(
      initialProgramWords({
        kind: 'submit',
        command: 'hostname',
        tasks: 1,
        submitCommand: 'flux run --label-io',
      }),
      ['bash', '-c', 'flux run --label-io -n 1 hostname'],
    );
    assert.deepEqual(initialProgramWords({ kind: 'launcher', command: 'python3 workflow.py' }), [
      'bash',
      '-c',
      'python3 workflow.py',
    ]);
    assert.deepEqual(
      initialProgramWords({ kind: 'batch', commands: 'echo one\n\n# skipped\n  echo two  \n', tasks: 2 }),
      [
        'bash',
        '-c',
        'set -e\nflux submit --quiet --flags=waitable -n 2 echo one\nflux submit --quiet --flags=waitable -n 2 echo two\nflux job wait --all\n',
      ],
    );
    assert.deepEqual(
      initialProgramWords({ kind: 'batchScript', script: "#!/bin/sh\necho 'hi'\n", nodes: 2 }),
      [
        'bash',
        '-c',
        `set -e -o pipefail\nprintf '%s\\n' '#!/bin/sh\necho '"'"'hi'"'"'\n' | flux batch --quiet --flags=waitable -N 2\nflux job wait --all\n`,
      ],
    );
  });

  it('submits 1 task on 3 nodes as just -n 1 (flux submit -n 1 -N 3 is refused)', () => {
    assert.deepEqual(initialProgramWords({ kind: 'submit', command: 'hostname', tasks: 1, nodes: 3 }), [
      'bash',
      '-c',
      'flux submit --quiet --watch -n 1 hostname',
    ]);
    assert.deepEqual(initialProgramWords({ kind: 'batch', commands: 'hostname', tasks: 2, nodes: 3 }), [
      'bash',
      '-c',
      'set -e\nflux submit --quiet --flags=waitable -n 2 hostname\nflux job wait --all\n',
    ]);
    assert.deepEqual(
      initialProgramWords({ kind: 'batchScript', script: 'hostname', nodes: 3, tasks: 1 })[2],
      "set -e -o pipefail\nprintf '%s\\n' hostname | flux batch --quiet --flags=waitable -n 1\nflux job wait --all\n",
    );
  });

  it('puts the job options on every submission, quoted, after the size', () => {
    const context = { jobOptions: ['-ompi=openmpi@5', '--setattr=user.note=a b'] };
    assert.deepEqual(
      initialProgramWords({ kind: 'submit', command: 'hostname', tasks: 4, nodes: 2 }, context),
      [
        'bash',
        '-c',
        "flux submit --quiet --watch -n 4 -N 2 -ompi=openmpi@5 '--setattr=user.note=a b' hostname",
      ],
    );
    assert.deepEqual(
      initialProgramWords({ kind: 'batch', commands: 'a\nb', tasks: 1 }, context)[2],
      [
        'set -e',
        "flux submit --quiet --flags=waitable -n 1 -ompi=openmpi@5 '--setattr=user.note=a b' a",
        "flux submit --quiet --flags=waitable -n 1 -ompi=openmpi@5 '--setattr=user.note=a b' b",
        'flux job wait --all',
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      initialProgramWords({ kind: 'batchScript', script: 'hostname', nodes: 2 }, context)[2],
      "set -e -o pipefail\nprintf '%s\\n' hostname | flux batch --quiet --flags=waitable -N 2 -ompi=openmpi@5 '--setattr=user.note=a b'\nflux job wait --all\n",
    );
    // A launcher submits its own jobs: it finds the options in FLUX_OPTION_FLAGS.
    assert.deepEqual(initialProgramWords({ kind: 'launcher', command: 'python3 run.py' }, context), [
      'bash',
      '-c',
      'python3 run.py',
    ]);
  });

  it('runs the command, reports its status and stays up when the program stays up', () => {
    assert.deepEqual(
      initialProgramWords({ kind: 'submit', command: 'echo "hi" && exit 3', tasks: 1, whenDone: 'stayUp' }),
      ['bash', '-c', STAY_UP_PROGRAM, 'stay-up', 'flux submit --quiet --watch -n 1 echo "hi" && exit 3'],
    );
    assert.deepEqual(
      initialProgramWords({ kind: 'launcher', command: 'run', whenDone: 'stayUp' }, { quiet: true }),
      ['bash', '-c', STAY_UP_PROGRAM, 'stay-up', 'run', 'quiet'],
    );
    assert.deepEqual(initialProgramWords({ kind: 'launcher', command: 'run', whenDone: 'exit' }), [
      'bash',
      '-c',
      'run',
    ]);
  });
});

describe('entrypointScript validation', () => {
  it('rejects inputs that would make a broken script', () => {
    const cases: [Partial<EntrypointInput>, RegExp][] = [
      [{ jobName: 'Flux_Sample' }, /jobName "Flux_Sample" is not a DNS label/],
      [{ fluxUser: { name: 'flux user', uid: 1 } }, /not a portable user name/],
      [{ paths: { ...fixedPaths, runDir: 'run/flux' } }, /paths.runDir must be an absolute path/],
      [{ fluxInstallRoot: 'usr' }, /fluxInstallRoot must be an absolute path/],
      [
        { broker: { tbon: { fanout: 2 }, logLevel: 9, connectTimeout: '5s', size: 1, listedSize: 1 } },
        /broker.logLevel must be an integer in \[0, 7\]/,
      ],
      [
        { broker: { tbon: { fanout: 2 }, logLevel: 1, connectTimeout: '5s', size: 3, listedSize: 2 } },
        /broker.listedSize must be an integer in \[3,/,
      ],
      [
        {
          broker: {
            tbon: { fanout: 2 },
            logLevel: 1,
            connectTimeout: '5s',
            size: 1,
            listedSize: 1,
            wrap: ['a,b'],
          },
        },
        /cannot contain commas/,
      ],
      [{ program: { kind: 'submit', command: 'x', tasks: 0 } }, /program.tasks/],
      [{ program: { kind: 'batch', commands: '# nothing\n\n' } }, /no command lines/],
      [{ program: { kind: 'launcher', command: '  ' } }, /program.command must not be empty/],
      [{ program: { kind: 'batchScript', script: '', nodes: 1 } }, /program.script must not be empty/],
      [{ workerRestart: { delaySeconds: -1 } }, /delaySeconds/],
      [
        {
          program: {
            kind: 'restful',
            serverPath: 'server.py',
            credentialsSourcePath: '/a',
            credentialsPath: '/b',
            port: 5000,
          },
        },
        /program.serverPath must be an absolute path/,
      ],
      [
        {
          program: {
            kind: 'restful',
            serverPath: '/server.py',
            credentialsSourcePath: '/a',
            credentialsPath: '/b',
            port: 70000,
          },
        },
        /program.port must be an integer in \[1, 65535\]/,
      ],
    ];
    for (const [overrides, message] of cases) {
      assert.throws(() => entrypointScript(entrypointInput(overrides)), message);
    }
  });
});

/** Inputs covering every branch of the generator, for the static checks. */
const scriptVariants: [string, EntrypointInput][] = [
  ['minimal submit', entrypointInput()],
  [
    'everything on',
    entrypointInput({
      resource: { writtenBy: 'operator' },
      munge: {
        keySourcePath: '/flux-secrets/munge/munge.key',
        keyPath: '/etc/munge/munge.key',
        user: 'munge',
        socketDir: '/run/munge',
        seedDir: '/var/lib/munge',
        logDir: '/var/log/munge',
      },
      jobOptions: ['-ompi=openmpi@5', "--setattr=it's"],
      broker: {
        tbon: { topology: 'binary' },
        logLevel: 7,
        connectTimeout: '10s',
        size: 2,
        listedSize: 8,
        extraOptions: ['-Sbroker.rc2_none', '-Slog-filename=/tmp/a b'],
        wrap: ['strace', '-e', 'network', '-tt'],
      },
      program: {
        kind: 'submit',
        command: 'echo "it\'s $HOSTNAME" | tee out',
        tasks: 4,
        nodes: 2,
        submitCommand: 'flux run',
      },
      hooks: {
        init: 'echo "init $(date)"',
        pre: "export GREETING='hi there'",
        brokerPre: 'if true; then echo lead; fi',
        workerPre: 'echo worker',
        post: 'echo "done: $?"',
        prefix: 'singularity exec "my image.sif"',
      },
      logging: { quiet: true, debug: true, timed: true, zeromq: true, strict: true },
      workerRestart: { delaySeconds: 10, maxAttempts: 5 },
    }),
  ],
  ['interactive', entrypointInput({ program: { kind: 'interactive' } })],
  [
    'interactive with a command',
    entrypointInput({ program: { kind: 'batch', commands: 'echo 1\necho 2', whenDone: 'stayUp' } }),
  ],
  [
    'prefix and job options, launcher',
    entrypointInput({
      program: { kind: 'launcher', command: 'python3 run.py' },
      hooks: { prefix: "strace -f -o '/tmp/a b'" },
      jobOptions: ['-o', 'mpi=openmpi@5'],
    }),
  ],
  ['launcher', entrypointInput({ program: { kind: 'launcher', command: 'python3 -m run "$@"' } })],
  ['batch', entrypointInput({ program: { kind: 'batch', commands: 'echo 1\necho "$((1 + 1))"', nodes: 1 } })],
  [
    'batch script',
    entrypointInput({
      program: { kind: 'batchScript', script: '#!/bin/bash\n#flux: -N 2\nhostname\n', nodes: 2 },
    }),
  ],
  ['burst side', entrypointInput({ jobName: 'burst-0', leadIsRemote: true, hooks: { workerPre: 'echo w' } })],
  [
    'unbalanced user quotes',
    entrypointInput({
      hooks: { pre: 'echo "unterminated' },
      program: { kind: 'launcher', command: "echo '" },
    }),
  ],
];

describe('entrypointScript static checks', () => {
  for (const [label, variant] of scriptVariants) {
    it(`${label}: passes shellcheck and bash -n`, () => {
      const script = entrypointScript(variant);
      const shellcheck = spawnSync('shellcheck', ['-s', 'bash', '-'], { input: script, encoding: 'utf8' });
      assert.equal(shellcheck.error, undefined, 'shellcheck must be installed');
      assert.equal(shellcheck.status, 0, shellcheck.stdout);
      const syntax = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
      assert.equal(syntax.status, 0, syntax.stderr);
    });
  }

  it('is deterministic and starts with a bash shebang', () => {
    const script = entrypointScript(entrypointInput());
    assert.equal(script, entrypointScript(entrypointInput()));
    assert.ok(script.startsWith('#!/bin/bash\n'));
  });

  it('switches shell options only when asked', () => {
    const plain = entrypointScript(entrypointInput());
    assert.doesNotMatch(plain, /^set -eEu -o pipefail$/m);
    assert.doesNotMatch(plain, /^set -x$/m);
    assert.match(plain, /^log_timed=''$/m);
    const loud = entrypointScript(entrypointInput({ logging: { strict: true, debug: true, timed: true } }));
    assert.match(loud, /^set -eEu -o pipefail$/m);
    assert.match(loud, /^set -x$/m);
    assert.match(loud, /^log_timed=yes$/m);
  });

  it('times the broker only when asked', () => {
    const sandbox = makeSandbox();
    const plain = runScript(sandbox, sandboxInput(sandbox), 'flux-sample-0');
    assert.equal(plain.status, 0, plain.stderr);
    assert.doesNotMatch(plain.stderr, /^real\s/m);
    const timed = runScript(sandbox, sandboxInput(sandbox, { logging: { timed: true } }), 'flux-sample-0');
    assert.equal(timed.status, 0, timed.stderr);
    assert.match(timed.stderr, /^real\s+\d+m[\d.]+s$/m);
  });

  it('passes hooks as quoted strings, so they cannot break the script', () => {
    const script = entrypointScript(entrypointInput({ hooks: { pre: "echo 'a'; exit 3" } }));
    assert.match(script, /^hook_pre='echo '"'"'a'"'"'; exit 3'$/m);
  });
});

// ---------------------------------------------------------------------------------------------
// Running the script under bash, with stub `flux`, `uname` (and `munged`) on PATH.

const sandboxes: string[] = [];
after(() => {
  for (const sandbox of sandboxes) rmSync(sandbox, { recursive: true, force: true });
});

/** Records its argv (one record per call) and imitates the parts of flux the script drives. */
const FLUX_STUB = String.raw`#!/bin/bash
{ for arg in "$@"; do printf '%s\037' "$arg"; done; printf '\036'; } >>"$STUB_DIR/argv"
case "$1" in
  R) echo '{"stub":"R"}' ;;
  submit) exit "$STUB_SUBMIT_EXIT" ;;
  batch) cat >"$STUB_DIR/batch-stdin" ;;
  job) exit "$STUB_WAIT_EXIT" ;;
  start)
    shift
    printenv FLUX_OPTION_FLAGS >>"$STUB_DIR/start-env" || echo '(unset)' >>"$STUB_DIR/start-env"
    if [ -n "$STUB_CERT" ]; then
      # As a broker does: read the certificate (its mode and text recorded), then run rc1, whose
      # last task runs the rc1.d scripts of FLUX_RC_EXTRA; then is the copy still there?
      { stat -c '%a' "$STUB_CERT" && cat "$STUB_CERT"; } >>"$STUB_DIR/cert-at-start" 2>&1 || true
      IFS=: read -ra rc_dirs <<<"$FLUX_RC_EXTRA"
      for dir in "${'$'}{rc_dirs[@]}"; do
        for script in "$dir"/rc1.d/*; do
          if [ -x "$script" ]; then "$script" || echo "rc1 failed" >>"$STUB_DIR/cert-while-running"; fi
        done
      done
      if [ -e "$STUB_CERT" ]; then echo kept; else echo removed; fi >>"$STUB_DIR/cert-while-running"
    fi
    # Find the initial program as flux start and the broker would, after the options: flux start
    # hands its -o value (--config) and everything after its own options to the broker, which
    # reads --config DIR and the -S options and stops at the first other word.
    while [ "$#" -gt 0 ]; do
      case "$1" in
        -o) shift ;;
        --config) shift 2 ;;
        -*) shift ;;
        *) break ;;
      esac
    done
    if [ "$#" -eq 0 ]; then
      # A worker broker: exit with the next planned status (0 once the plan is used up).
      status=0
      if [ -s "$STUB_DIR/worker-exits" ]; then
        status="$(head -n 1 "$STUB_DIR/worker-exits")"
        sed -i 1d "$STUB_DIR/worker-exits"
      fi
      exit "$status"
    fi
    if [ "$1" = sleep ]; then
      # The interactive keep-alive: stands for an instance shut down from outside.
      exit "$STUB_INTERACTIVE_EXIT"
    fi
    "$@"
    ;;
esac
`;

interface Sandbox {
  root: string;
  paths: EntrypointPaths;
  installRoot: string;
  hookLog: string;
}

function makeSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'flux-entrypoint-'));
  sandboxes.push(root);
  const installRoot = join(root, 'flux');
  mkdirSync(join(installRoot, 'bin'), { recursive: true });
  mkdirSync(join(root, 'secrets'));
  writeFileSync(join(root, 'secrets', 'curve.cert'), 'CERTIFICATE\n', { mode: 0o644 });
  writeFileSync(join(root, 'secrets', 'munge.key'), 'MUNGEKEY', { mode: 0o644 });
  writeFileSync(join(installRoot, 'bin', 'flux'), FLUX_STUB, { mode: 0o755 });
  writeFileSync(join(installRoot, 'bin', 'uname'), '#!/bin/sh\necho "$STUB_HOSTNAME"\n', { mode: 0o755 });
  // The ConfigMap's folder of the operator's rc1 script, as the pods mount it.
  mkdirSync(join(root, 'operator', 'rc1.d'), { recursive: true });
  writeFileSync(join(root, 'operator', FORGET_CERTIFICATE_RC_PATH), forgetCertificateScript(), {
    mode: 0o555,
  });
  return {
    root,
    installRoot,
    hookLog: join(root, 'hooks.log'),
    paths: {
      configDir: join(root, 'etc/flux/config'),
      curveCertSourcePath: join(root, 'secrets/curve.cert'),
      curveCertPath: join(root, 'etc/flux/system/curve.cert'),
      resourcePath: join(root, 'etc/flux/system/R'),
      runDir: join(root, 'run/flux'),
      stateDir: join(root, 'var/lib/flux'),
      rcExtraDir: join(root, 'operator'),
    },
  };
}

/** The sandbox's version of `entrypointInput`, running as the current user. */
function sandboxInput(sandbox: Sandbox, overrides: Partial<EntrypointInput> = {}): EntrypointInput {
  const me = userInfo();
  return entrypointInput({
    fluxInstallRoot: sandbox.installRoot,
    fluxUser: { name: me.username, uid: me.uid },
    paths: sandbox.paths,
    ...overrides,
  });
}

/** An executable in the sandbox's Flux bin directory (first on the script's PATH). */
function addCommand(sandbox: Sandbox, name: string, text: string): void {
  writeFileSync(join(sandbox.installRoot, 'bin', name), text, { mode: 0o755 });
}

/** Records of `\037`-separated words, one per call, as the stubs write them. */
function readRecords(path: string): string[][] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\x1e')
    .slice(0, -1)
    .map((record) => record.split('\x1f').slice(0, -1));
}

const RECORD_ARGV = String.raw`{ for arg in "$@"; do printf '%s\037' "$arg"; done; printf '\036'; }`;

/**
 * A user database of the sandbox's own (`$STUB_DIR/passwd`): `getent`, `id` and `useradd` stubs
 * that read and write it the way the real ones do /etc/passwd (useradd refuses a taken uid with
 * exit 4, as it does on Ubuntu 24.04 where uid 1000 is `ubuntu`, and picks 1001 and up itself),
 * plus `chown`, `runuser` and `sudo` stubs, so a run can create a user that does not exist here.
 */
function addUserDatabase(sandbox: Sandbox, passwd: string): void {
  writeFileSync(join(sandbox.root, 'passwd'), passwd);
  addCommand(
    sandbox,
    'getent',
    String.raw`#!/bin/bash
awk -F: -v key="$2" '$1 == key || $3 == key { print; found = 1 } END { exit found ? 0 : 2 }' "$STUB_DIR/passwd"
`,
  );
  addCommand(
    sandbox,
    'id',
    String.raw`#!/bin/bash
for last in "$@"; do :; done
if [ "$#" -gt 1 ] && entry="$(grep "^$last:" "$STUB_DIR/passwd")"; then
  IFS=: read -r name _ uid gid _ <<<"$entry"
  case "$1" in
    -u) echo "$uid" ;;
    -g) echo "$gid" ;;
    *) echo "$name" ;;
  esac
  exit 0
fi
exec env PATH=/usr/local/bin:/usr/bin:/bin id "$@"
`,
  );
  addCommand(
    sandbox,
    'useradd',
    String.raw`#!/bin/bash
${RECORD_ARGV} >>"$STUB_DIR/useradd-argv"
uid=""
while [ "$#" -gt 1 ]; do
  case "$1" in
    -u | --uid) uid="$2"; shift 2 ;;
    *) shift ;;
  esac
done
if [ -n "$uid" ] && cut -d: -f3 "$STUB_DIR/passwd" | grep -qx "$uid"; then
  echo "useradd: UID $uid is not unique" >&2
  exit 4
fi
if [ -z "$uid" ]; then
  uid=1001
  while cut -d: -f3 "$STUB_DIR/passwd" | grep -qx "$uid"; do uid=$((uid + 1)); done
fi
echo "$1:x:$uid:$uid::/home/$1:/bin/bash" >>"$STUB_DIR/passwd"
`,
  );
  addCommand(sandbox, 'chown', '#!/bin/sh\nexit 0\n');
  const runAs = '#!/bin/bash\nwhile [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n';
  addCommand(sandbox, 'runuser', runAs);
  addCommand(sandbox, 'sudo', runAs);
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** argv of every `flux` call, in order. */
  fluxCalls: string[][];
}

/** The script's environment: the stubs' settings, `env` last. */
function scriptEnv(sandbox: Sandbox, hostname: string, env: Record<string, string>): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    STUB_DIR: sandbox.root,
    STUB_HOSTNAME: hostname,
    HOOK_LOG: sandbox.hookLog,
    STUB_SUBMIT_EXIT: '0',
    STUB_WAIT_EXIT: '0',
    STUB_INTERACTIVE_EXIT: '0',
    STUB_STOP_SECONDS: '0',
    STUB_STOP_EXIT: '0',
    ...env,
  };
}

/** Writes the script for `input` into the sandbox and returns its path. */
function writeScript(sandbox: Sandbox, input: EntrypointInput): string {
  const scriptPath = join(sandbox.root, 'entrypoint.sh');
  writeFileSync(scriptPath, entrypointScript(input), { mode: 0o755 });
  return scriptPath;
}

function runScript(
  sandbox: Sandbox,
  input: EntrypointInput,
  hostname: string,
  env: Record<string, string> = {},
): Run {
  const result = spawnSync('bash', [writeScript(sandbox, input)], {
    encoding: 'utf8',
    timeout: 20_000,
    env: scriptEnv(sandbox, hostname, env),
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    fluxCalls: readRecords(join(sandbox.root, 'argv')),
  };
}

function startWords(sandbox: Sandbox, extra: string[] = []): string[] {
  const { paths } = sandbox;
  return [
    'start',
    '-o',
    '--config',
    paths.configDir,
    '-Stbon.fanout=256',
    `-Srundir=${paths.runDir}`,
    `-Sstatedir=${paths.stateDir}`,
    `-Slocal-uri=local://${paths.runDir}/local`,
    '-Slog-stderr-level=6',
    '-Stbon.connect_timeout=5s',
    ...extra,
  ];
}

const recordingHooks = {
  init: 'echo init >>"$HOOK_LOG"',
  pre: 'echo pre >>"$HOOK_LOG"; export FROM_PRE=yes',
  brokerPre: 'echo "brokerPre $FROM_PRE" >>"$HOOK_LOG"',
  workerPre: 'echo "workerPre $FROM_PRE" >>"$HOOK_LOG"',
  post: 'echo post >>"$HOOK_LOG"; false',
};

describe('entrypointScript run with stubs', () => {
  it('lead in RESTful mode: copies the credentials for the flux user, then serves with flux python', () => {
    const sandbox = makeSandbox();
    const source = join(sandbox.root, 'secrets', 'credentials.json');
    writeFileSync(source, '{"secretKey":"k","users":{"flux":"t"}}\n', { mode: 0o644 });
    const credentialsPath = join(sandbox.root, 'state', 'restful', 'credentials.json');
    const program: EntrypointInput['program'] = {
      kind: 'restful',
      ignoredBranch: 'main',
      serverPath: '/flux_operator/restful-server.py',
      credentialsSourcePath: source,
      credentialsPath,
      port: 5000,
    };
    const run = runScript(sandbox, sandboxInput(sandbox, { program }), 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    const server = ['python', '/flux_operator/restful-server.py', credentialsPath, '5000'];
    assert.deepEqual(run.fluxCalls, [
      ['R', 'encode', '--hosts=flux-sample-[0-1]', '--local'],
      [...startWords(sandbox), 'flux', ...server],
      server,
    ]);
    assert.equal(readFileSync(credentialsPath, 'utf8'), '{"secretKey":"k","users":{"flux":"t"}}\n');
    assert.equal(statSync(credentialsPath).mode & 0o777, 0o400);
    assert.match(run.stdout, /RESTful instance: the API is served on port 5000\n/);
    assert.match(
      run.stdout,
      /fluxRestful\.branch main is ignored: the server ships with the operator, nothing is cloned\n/,
    );
  });

  it('worker in RESTful mode: runs a worker broker and never touches the credentials', () => {
    const sandbox = makeSandbox();
    const credentialsPath = join(sandbox.root, 'state', 'restful', 'credentials.json');
    const program: EntrypointInput['program'] = {
      kind: 'restful',
      serverPath: '/flux_operator/restful-server.py',
      credentialsSourcePath: join(sandbox.root, 'secrets', 'absent.json'),
      credentialsPath,
      port: 5000,
    };
    const run = runScript(sandbox, sandboxInput(sandbox, { program }), 'flux-sample-1');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.fluxCalls.at(-1), startWords(sandbox));
    assert.ok(!existsSync(credentialsPath));
  });

  it('lead: sets up the pod, starts the broker with the submit program, exits with the job status', () => {
    const sandbox = makeSandbox();
    const run = runScript(sandbox, sandboxInput(sandbox, { hooks: recordingHooks }), 'flux-sample-0', {
      STUB_SUBMIT_EXIT: '3',
      STUB_CERT: sandbox.paths.curveCertPath,
    });
    assert.equal(run.status, 3, run.stderr);
    assert.deepEqual(run.fluxCalls, [
      ['R', 'encode', '--hosts=flux-sample-[0-1]', '--local'],
      [...startWords(sandbox), 'bash', '-c', 'flux submit --quiet --watch -n 2 echo hello'],
      ['submit', '--quiet', '--watch', '-n', '2', 'echo', 'hello'],
    ]);
    assert.equal(readFileSync(sandbox.hookLog, 'utf8'), 'init\npre\nbrokerPre yes\npost\n');
    assert.equal(readFileSync(sandbox.paths.resourcePath, 'utf8'), '{"stub":"R"}\n');
    // The broker found its private copy of the certificate; it went once the broker had its socket.
    assert.equal(readFileSync(join(sandbox.root, 'cert-at-start'), 'utf8'), '400\nCERTIFICATE\n');
    assert.equal(readFileSync(join(sandbox.root, 'cert-while-running'), 'utf8'), 'removed\n');
    assert.equal(existsSync(sandbox.paths.curveCertPath), false);
    assert.ok(statSync(sandbox.paths.runDir).isDirectory());
    assert.ok(statSync(sandbox.paths.stateDir).isDirectory());
    assert.match(run.stdout, /pod flux-sample-0: lead/);
    assert.match(run.stdout, /the lead broker exited with status 3/);
    assert.match(run.stdout, /the post hook failed/);
  });

  it('quiet: the setup hooks print nothing (their exports still reach the broker), the post hook does', () => {
    const sandbox = makeSandbox();
    const printing = {
      init: 'echo init-out',
      pre: 'echo pre-out; echo pre-err >&2; export FROM_PRE=yes',
      brokerPre: 'echo "brokerPre-out $FROM_PRE"; echo "brokerPre $FROM_PRE" >>"$HOOK_LOG"',
      post: 'echo post-out',
    };
    const quiet = sandboxInput(sandbox, { hooks: printing, logging: { quiet: true } });
    const run = runScript(sandbox, quiet, 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'post-out\n');
    assert.equal(run.stderr, 'pre-err\n');
    assert.equal(readFileSync(sandbox.hookLog, 'utf8'), 'brokerPre yes\n');
    const loud = runScript(sandbox, sandboxInput(sandbox, { hooks: printing }), 'flux-sample-0');
    for (const line of ['init-out', 'pre-out', 'brokerPre-out yes', 'post-out']) {
      assert.match(loud.stdout, new RegExp(`^${line}$`, 'm'));
    }
  });

  it('lead: exits 0 when the job succeeds, and leaves R alone when the operator wrote it', () => {
    const sandbox = makeSandbox();
    const run = runScript(
      sandbox,
      sandboxInput(sandbox, { resource: { writtenBy: 'operator' } }),
      'flux-sample-0',
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(
      run.fluxCalls.map((call) => call[0]),
      ['start', 'submit'],
    );
    assert.equal(existsSync(sandbox.paths.resourcePath), false);
  });

  it('worker: retries a failing broker, then stops at the first clean exit', () => {
    const sandbox = makeSandbox();
    writeFileSync(join(sandbox.root, 'worker-exits'), '1\n137\n0\n1\n');
    const run = runScript(sandbox, sandboxInput(sandbox, { hooks: recordingHooks }), 'flux-sample-1');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.fluxCalls, [
      ['R', 'encode', '--hosts=flux-sample-[0-1]', '--local'],
      startWords(sandbox),
      startWords(sandbox),
      startWords(sandbox),
    ]);
    assert.equal(readFileSync(sandbox.hookLog, 'utf8'), 'init\npre\nworkerPre yes\n');
    assert.match(run.stdout, /exited with status 137: retrying in 0 s/);
    assert.match(run.stdout, /the instance shut down: worker done/);
  });

  it('worker: gives up after maxAttempts with the broker status', () => {
    const sandbox = makeSandbox();
    writeFileSync(join(sandbox.root, 'worker-exits'), '1\n2\n0\n');
    const run = runScript(
      sandbox,
      sandboxInput(sandbox, { workerRestart: { delaySeconds: 0, maxAttempts: 2 } }),
      'flux-sample-7',
    );
    assert.equal(run.status, 2);
    assert.equal(run.fluxCalls.filter((call) => call[0] === 'start').length, 2);
    assert.match(run.stderr, /worker broker failed 2 times, last status 2/);
  });

  it('interactive lead: keeps the instance up with sleep inf, quorum when hosts are missing', () => {
    const sandbox = makeSandbox();
    const input = sandboxInput(sandbox, {
      program: { kind: 'interactive' },
      broker: { tbon: { fanout: 256 }, logLevel: 6, connectTimeout: '5s', size: 2, listedSize: 4 },
    });
    const run = runScript(sandbox, input, 'flux-sample-0', { STUB_INTERACTIVE_EXIT: '0' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.fluxCalls.slice(1), [
      [...startWords(sandbox, ['-Sbroker.quorum=2']), 'sleep', 'inf'],
    ]);
    assert.match(run.stdout, new RegExp(`connect with flux proxy local://${sandbox.paths.runDir}/local`));
  });

  it('launcher lead: the command itself is the initial program', () => {
    const sandbox = makeSandbox();
    const input = sandboxInput(sandbox, {
      program: { kind: 'launcher', command: 'flux submit --wait-event=start "a b" && exit 4' },
    });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 4, run.stderr);
    assert.deepEqual(run.fluxCalls.slice(1), [
      [...startWords(sandbox), 'bash', '-c', 'flux submit --wait-event=start "a b" && exit 4'],
      ['submit', '--wait-event=start', 'a b'],
    ]);
  });

  it('keeps multi-line hooks byte for byte (a heredoc terminator must stay in column 0)', () => {
    const sandbox = makeSandbox();
    const brokerPre = 'cat >>"$HOOK_LOG" <<EOF\n  indented line\nEOF';
    const run = runScript(sandbox, sandboxInput(sandbox, { hooks: { brokerPre } }), 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(sandbox.hookLog, 'utf8'), '  indented line\n');
  });

  it('batch lead: submits every line as a waitable job, then waits for all', () => {
    const sandbox = makeSandbox();
    const input = sandboxInput(sandbox, {
      program: { kind: 'batch', commands: 'echo one\necho "two words"\n', tasks: 1 },
    });
    const run = runScript(sandbox, input, 'flux-sample-0', { STUB_WAIT_EXIT: '5' });
    assert.equal(run.status, 5, run.stderr);
    assert.deepEqual(run.fluxCalls.slice(2), [
      ['submit', '--quiet', '--flags=waitable', '-n', '1', 'echo', 'one'],
      ['submit', '--quiet', '--flags=waitable', '-n', '1', 'echo', 'two words'],
      ['job', 'wait', '--all'],
    ]);
  });

  it('batch script lead: hands the script to flux batch on stdin', () => {
    const sandbox = makeSandbox();
    const script = "#!/bin/bash\n#flux: --job-name=it's\nhostname\n";
    const input = sandboxInput(sandbox, { program: { kind: 'batchScript', script, nodes: 2, tasks: 2 } });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.fluxCalls.slice(2), [
      ['batch', '--quiet', '--flags=waitable', '-n', '2', '-N', '2'],
      ['job', 'wait', '--all'],
    ]);
    assert.equal(readFileSync(join(sandbox.root, 'batch-stdin'), 'utf8'), `${script}\n`);
  });

  it('burst side: pod index 0 is a worker too', () => {
    const sandbox = makeSandbox();
    const input = sandboxInput(sandbox, {
      jobName: 'burst-0',
      leadIsRemote: true,
      resource: { writtenBy: 'operator' },
    });
    const run = runScript(sandbox, input, 'burst-0-0');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.fluxCalls, [startWords(sandbox)]);
    assert.match(run.stdout, /pod burst-0-0: worker/);
  });

  it('starts munged with a private copy of the key and the directories it checks, when the image has it', () => {
    const sandbox = makeSandbox();
    const mungeDirs = {
      socketDir: join(sandbox.root, 'run/munge'),
      seedDir: join(sandbox.root, 'var/lib/munge'),
      logDir: join(sandbox.root, 'var/log/munge'),
    };
    // munged refuses a socket directory others can write to: one made so by an image is fixed.
    mkdirSync(mungeDirs.socketDir, { recursive: true });
    chmodSync(mungeDirs.socketDir, 0o777);
    addCommand(
      sandbox,
      'munged',
      String.raw`#!/bin/bash
modes="$(stat -c %a "$STUB_DIR/run/munge" "$STUB_DIR/var/lib/munge" "$STUB_DIR/var/log/munge" "$STUB_DIR/etc/munge")"
echo "munged $(id -un)" $modes >>"$STUB_DIR/munged.log"
`,
    );
    const mungeKeyPath = join(sandbox.root, 'etc/munge/munge.key');
    const input = sandboxInput(sandbox, {
      munge: {
        keySourcePath: join(sandbox.root, 'secrets/munge.key'),
        keyPath: mungeKeyPath,
        user: userInfo().username,
        ...mungeDirs,
      },
    });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      readFileSync(join(sandbox.root, 'munged.log'), 'utf8'),
      `munged ${userInfo().username} 755 700 700 700\n`,
    );
    assert.equal(readFileSync(mungeKeyPath, 'utf8'), 'MUNGEKEY');
    assert.equal(statSync(mungeKeyPath).mode & 0o777, 0o400);
  });

  it('skips munge when the image has no munged', () => {
    const sandbox = makeSandbox();
    const mungeKeyPath = join(sandbox.root, 'etc/munge/munge.key');
    const input = sandboxInput(sandbox, {
      munge: {
        keySourcePath: join(sandbox.root, 'secrets/munge.key'),
        keyPath: mungeKeyPath,
        user: 'munge',
        socketDir: join(sandbox.root, 'run/munge'),
        seedDir: join(sandbox.root, 'var/lib/munge'),
        logDir: join(sandbox.root, 'var/log/munge'),
      },
    });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /munged is not in the image/);
    assert.equal(existsSync(mungeKeyPath), false);
    assert.equal(existsSync(join(sandbox.root, 'run/munge')), false);
  });

  it('lead of 3 brokers with the default 1 task: submits -n 1 without -N', () => {
    const sandbox = makeSandbox();
    const input = sandboxInput(sandbox, {
      broker: { tbon: { fanout: 256 }, logLevel: 6, connectTimeout: '5s', size: 3, listedSize: 3 },
      program: { kind: 'submit', command: 'hostname', tasks: 1, nodes: 3 },
    });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.fluxCalls.slice(1), [
      [...startWords(sandbox), 'bash', '-c', 'flux submit --quiet --watch -n 1 hostname'],
      ['submit', '--quiet', '--watch', '-n', '1', 'hostname'],
    ]);
  });

  it('interactive lead with a command: runs it as its job, then keeps the instance up', () => {
    const sandbox = makeSandbox();
    // The keep-alive: records that it ran instead of sleeping forever.
    addCommand(
      sandbox,
      'sleep',
      '#!/bin/bash\nif [ "$1" = inf ]; then echo "sleep inf" >>"$STUB_DIR/sleep.log"; exit 0; fi\nexec /bin/sleep "$@"\n',
    );
    const input = sandboxInput(sandbox, {
      program: { kind: 'submit', command: 'echo hello', tasks: 2, whenDone: 'stayUp' },
    });
    const run = runScript(sandbox, input, 'flux-sample-0', { STUB_SUBMIT_EXIT: '3' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.fluxCalls.slice(1), [
      [
        ...startWords(sandbox),
        'bash',
        '-c',
        STAY_UP_PROGRAM,
        'stay-up',
        'flux submit --quiet --watch -n 2 echo hello',
      ],
      ['submit', '--quiet', '--watch', '-n', '2', 'echo', 'hello'],
    ]);
    assert.match(
      run.stdout,
      /^flux-operator: the program exited with status 3; the instance stays up \(interactive\)$/m,
    );
    assert.match(run.stdout, /connect with flux proxy local:\/\//);
    assert.equal(readFileSync(join(sandbox.root, 'sleep.log'), 'utf8'), 'sleep inf\n');
  });

  it('job options: on every submission and in the lead broker environment, never on flux start', () => {
    const sandbox = makeSandbox();
    const jobOptions = ['-o', 'mpi=openmpi@5', '--setattr=user.note=a b'];
    const batch = runScript(
      sandbox,
      sandboxInput(sandbox, {
        program: { kind: 'batch', commands: 'echo one\necho two', tasks: 1 },
        jobOptions,
      }),
      'flux-sample-0',
    );
    assert.equal(batch.status, 0, batch.stderr);
    assert.deepEqual(
      batch.fluxCalls.filter((call) => call[0] === 'submit'),
      [
        ['submit', '--quiet', '--flags=waitable', '-n', '1', ...jobOptions, 'echo', 'one'],
        ['submit', '--quiet', '--flags=waitable', '-n', '1', ...jobOptions, 'echo', 'two'],
      ],
    );
    assert.deepEqual(batch.fluxCalls[1]?.slice(0, startWords(sandbox).length), startWords(sandbox));
    assert.equal(
      readFileSync(join(sandbox.root, 'start-env'), 'utf8'),
      '-o mpi=openmpi@5 --setattr=user.note=a b\n',
    );
  });

  it('job options with a launcher: only exported; workers get none', () => {
    const sandbox = makeSandbox();
    const input = sandboxInput(sandbox, {
      program: { kind: 'launcher', command: 'flux submit $FLUX_OPTION_FLAGS hostname' },
      jobOptions: ['-ompi=openmpi@5'],
    });
    const lead = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(lead.status, 0, lead.stderr);
    assert.deepEqual(lead.fluxCalls.slice(1), [
      [...startWords(sandbox), 'bash', '-c', 'flux submit $FLUX_OPTION_FLAGS hostname'],
      ['submit', '-ompi=openmpi@5', 'hostname'],
    ]);
    const worker = makeSandbox();
    const run = runScript(worker, sandboxInput(worker, { jobOptions: ['-ompi=openmpi@5'] }), 'flux-sample-1');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(join(worker.root, 'start-env'), 'utf8'), '(unset)\n');
  });

  it('prefix: wraps flux start on the lead and the workers, not the submission', () => {
    const sandbox = makeSandbox();
    addCommand(
      sandbox,
      'wrapper',
      `#!/bin/bash\n${RECORD_ARGV} >>"$STUB_DIR/wrapper-argv"\nwhile [ ! -x "$1" ]; do shift; done\nexec "$@"\n`,
    );
    const input = sandboxInput(sandbox, { hooks: { prefix: 'wrapper --bind "/a b" ' } });
    const fluxBin = join(sandbox.installRoot, 'bin', 'flux');
    const lead = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(lead.status, 0, lead.stderr);
    assert.deepEqual(lead.fluxCalls.slice(1), [
      [...startWords(sandbox), 'bash', '-c', 'flux submit --quiet --watch -n 2 echo hello'],
      ['submit', '--quiet', '--watch', '-n', '2', 'echo', 'hello'],
    ]);
    const worker = runScript(sandbox, input, 'flux-sample-1');
    assert.equal(worker.status, 0, worker.stderr);
    assert.deepEqual(readRecords(join(sandbox.root, 'wrapper-argv')), [
      [
        '--bind',
        '/a b',
        fluxBin,
        ...startWords(sandbox),
        'bash',
        '-c',
        'flux submit --quiet --watch -n 2 echo hello',
      ],
      ['--bind', '/a b', fluxBin, ...startWords(sandbox)],
    ]);
    assert.match(entrypointScript(input), /^flux_prefix='wrapper --bind "\/a b"'$/m);
  });

  it('flux user: created with its uid when the uid is free', () => {
    const sandbox = makeSandbox();
    addUserDatabase(sandbox, 'root:x:0:0::/root:/bin/bash\n');
    const input = sandboxInput(sandbox, { fluxUser: { name: 'fluxtest', uid: 1000 } });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(readRecords(join(sandbox.root, 'useradd-argv')), [
      ['-u', '1000', '--create-home', '--shell', '/bin/bash', 'fluxtest'],
    ]);
    assert.match(run.stdout, /^flux-operator: creating user fluxtest \(uid 1000\)$/m);
    assert.match(run.stdout, /^flux-operator: created user fluxtest with uid 1000$/m);
  });

  it('flux user: created with a uid useradd chooses when another user has the uid (ubuntu images)', () => {
    const sandbox = makeSandbox();
    addUserDatabase(sandbox, 'root:x:0:0::/root:/bin/bash\nubuntu:x:1000:1000::/home/ubuntu:/bin/bash\n');
    const input = sandboxInput(sandbox, {
      fluxUser: { name: 'fluxtest', uid: 1000 },
      logging: { strict: true },
    });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(readRecords(join(sandbox.root, 'useradd-argv')), [
      ['--create-home', '--shell', '/bin/bash', 'fluxtest'],
    ]);
    assert.match(
      run.stdout,
      /^flux-operator: uid 1000 belongs to ubuntu: creating user fluxtest with a free uid$/m,
    );
    assert.match(run.stdout, /^flux-operator: created user fluxtest with uid 1001$/m);
    assert.equal(run.fluxCalls.filter((call) => call[0] === 'start').length, 1);
  });

  it('flux user: an existing one is used as it is, whatever its uid', () => {
    const sandbox = makeSandbox();
    addUserDatabase(sandbox, 'fluxtest:x:1234:1234::/home/fluxtest:/bin/bash\n');
    const input = sandboxInput(sandbox, { fluxUser: { name: 'fluxtest', uid: 1000 } });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(existsSync(join(sandbox.root, 'useradd-argv')), false);
    assert.match(run.stdout, /^flux-operator: using the existing user fluxtest \(uid 1234\)$/m);
  });

  it('quiet: prints nothing of its own', () => {
    const sandbox = makeSandbox();
    const run = runScript(sandbox, sandboxInput(sandbox, { logging: { quiet: true } }), 'flux-sample-0');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, '');
  });

  it('strict: a failing hook stops the pod before the broker starts', () => {
    const sandbox = makeSandbox();
    const input = sandboxInput(sandbox, { hooks: { pre: 'false' }, logging: { strict: true } });
    const run = runScript(sandbox, input, 'flux-sample-0');
    assert.equal(run.status, 1);
    assert.equal(run.fluxCalls.filter((call) => call[0] === 'start').length, 0);
  });

  it('fails clearly when the container has no flux', () => {
    const sandbox = makeSandbox();
    rmSync(join(sandbox.installRoot, 'bin', 'flux'));
    const run = runScript(sandbox, sandboxInput(sandbox), 'flux-sample-0');
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      new RegExp(`flux is not in this container \\(looked in ${sandbox.installRoot}/bin and PATH=`),
    );
    assert.match(run.stderr, /set the Flux install root/);
  });

  it('fails clearly when the hostname is not a pod of the job', () => {
    const sandbox = makeSandbox();
    for (const hostname of ['other-0', 'flux-sample-x', 'flux-sample-']) {
      const run = runScript(sandbox, sandboxInput(sandbox), hostname);
      assert.equal(run.status, 1, hostname);
      assert.match(
        run.stderr,
        /flux-operator: error: hostname .* (is not a pod of job flux-sample|does not end in a pod index)/,
      );
    }
  });

  it('still finds its user files when the source certificate is replaced (copies, never links)', () => {
    const sandbox = makeSandbox();
    const env = { STUB_CERT: sandbox.paths.curveCertPath };
    runScript(sandbox, sandboxInput(sandbox), 'flux-sample-0', env);
    chmodSync(sandbox.paths.curveCertSourcePath, 0o644);
    writeFileSync(sandbox.paths.curveCertSourcePath, 'ROTATED\n');
    const run = runScript(sandbox, sandboxInput(sandbox), 'flux-sample-0', env);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      readFileSync(join(sandbox.root, 'cert-at-start'), 'utf8'),
      '400\nCERTIFICATE\n400\nROTATED\n',
    );
  });

  it('worker: every broker start gets a fresh copy of the certificate, removed while it runs', () => {
    const sandbox = makeSandbox();
    writeFileSync(join(sandbox.root, 'worker-exits'), '1\n0\n');
    const env = { STUB_CERT: sandbox.paths.curveCertPath };
    const run = runScript(sandbox, sandboxInput(sandbox), 'flux-sample-1', env);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(join(sandbox.root, 'cert-at-start'), 'utf8'), '400\nCERTIFICATE\n'.repeat(2));
    assert.equal(readFileSync(join(sandbox.root, 'cert-while-running'), 'utf8'), 'removed\n'.repeat(2));
    assert.equal(existsSync(sandbox.paths.curveCertPath), false);
  });

  it('makes flux-broker execute-only for a flux user of its own, so the brokers are not dumpable', () => {
    const sandbox = makeSandbox();
    addUserDatabase(sandbox, 'root:x:0:0::/root:/bin/bash\n');
    const broker = join(sandbox.installRoot, 'libexec/flux/cmd/flux-broker');
    mkdirSync(join(sandbox.installRoot, 'libexec/flux/cmd'), { recursive: true });
    writeFileSync(broker, '#!/bin/sh\n', { mode: 0o755 });
    const input = sandboxInput(sandbox, { fluxUser: { name: 'flux', uid: 1000 } });
    const run = runScript(sandbox, input, 'flux-sample-1');
    assert.equal(run.status, 0, run.stderr);
    if (process.getuid?.() === 0) {
      assert.equal(statSync(broker).mode & 0o777, 0o711);
      assert.match(
        run.stdout,
        /flux-broker is execute-only for flux: the jobs cannot read the brokers' memory/,
      );
    } else {
      // Not root: the file stays as it is (the brokers run as this user, who may read it anyway).
      assert.equal(statSync(broker).mode & 0o777, 0o755);
    }
    // The brokers' own user: nothing changes.
    chmodSync(broker, 0o755);
    const own = runScript(sandbox, sandboxInput(sandbox), 'flux-sample-1');
    assert.equal(own.status, 0, own.stderr);
    assert.equal(statSync(broker).mode & 0o777, 0o755);
  });
});

// ---------------------------------------------------------------------------------------------
// Stopping: the TERM the kubelet sends the script (PID 1 of the container) when the pod goes must
// reach the broker. Here the script is not PID 1: without its trap, bash would die of the TERM at
// once, its broker left running.

/**
 * A broker that runs until it gets TERM, then takes `$STUB_STOP_SECONDS` to shut down and exits
 * `$STUB_STOP_EXIT` (flux-core's lead broker exits 129 once a TERM ended its initial program). It
 * records its pid (`broker-pids`), that it is up (`broker-up`), then the signal it got and that it
 * finished shutting down (`broker-events`). It polls rather than `wait`s, so no TERM is missed.
 */
const WAITING_BROKER = String.raw`got="no signal"
trap 'got=TERM' TERM
printf '%s\n' "$$" >>"$STUB_DIR/broker-pids"
: >"$STUB_DIR/broker-up"
polls=0
while [ "$got" = "no signal" ] && [ "$polls" -lt 600 ]; do
  sleep 0.05
  polls=$((polls + 1))
done
printf '%s\n' "$got" >>"$STUB_DIR/broker-events"
sleep "$STUB_STOP_SECONDS"
printf 'shut down\n' >>"$STUB_DIR/broker-events"
exit "$STUB_STOP_EXIT"
`;

/**
 * `flux` whose `start` is the waiting broker: exec'd under the file name `brokerName` (flux-core's `flux
 * start` execs `flux-broker`, which renames itself `flux-broker-<rank>` once it knows its rank), or,
 * without a name, run by the `flux` stub itself (a broker the script cannot recognise, as behind a
 * wrapper that renames it).
 */
function addWaitingBroker(sandbox: Sandbox, brokerName?: string): void {
  const record = `${RECORD_ARGV} >>"$STUB_DIR/argv"`;
  const resource = `if [ "$1" = R ]; then echo '{"stub":"R"}'; exit 0; fi`;
  if (brokerName !== undefined) {
    addCommand(sandbox, brokerName, `#!/bin/bash\n${WAITING_BROKER}`);
    addCommand(sandbox, 'flux', `#!/bin/bash\n${record}\n${resource}\nexec ${brokerName} "$@"\n`);
  } else {
    addCommand(sandbox, 'flux', `#!/bin/bash\n${record}\n${resource}\n${WAITING_BROKER}`);
  }
}

/**
 * `runuser` and `sudo` that behave as util-linux `runuser` and `su` (2.38) do with a TERM: the command
 * runs in a child, the TERM is passed on to it, and 2 s later the child gets SIGKILL.
 */
const KILLING_RUNUSER = String.raw`#!/bin/bash
while [ "$1" != -- ]; do shift; done
shift
"$@" &
child=$!
trap 'echo TERM >>"$STUB_DIR/runuser-signals"; kill -TERM "$child"; sleep 2; kill -KILL "$child"; exit 143' TERM
wait "$child"
`;

function brokerEvents(sandbox: Sandbox): string[] {
  const path = join(sandbox.root, 'broker-events');
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : [];
}

function brokerPids(sandbox: Sandbox): string[] {
  return readFileSync(join(sandbox.root, 'broker-pids'), 'utf8').trim().split('\n');
}

interface StoppedRun extends Run {
  /** The signal that ended bash, if one did. */
  signal: NodeJS.Signals | null;
  /** From the signal to the script's exit. */
  stopMs: number;
}

/** Runs the script, sends it `signal` once `ready(stdout)` holds, and waits (20 s at most) for its exit. */
async function runScriptAndStop(
  sandbox: Sandbox,
  input: EntrypointInput,
  hostname: string,
  ready: (stdout: string) => boolean,
  env: Record<string, string> = {},
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<StoppedRun> {
  const child = spawn('bash', [writeScript(sandbox, input)], {
    env: scriptEnv(sandbox, hostname, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const closed = once(child, 'close');
  const readyBy = Date.now() + 10_000;
  while (!ready(stdout)) {
    if (child.exitCode !== null || Date.now() > readyBy) {
      child.kill('SIGKILL');
      assert.fail(`the script never got ready to be stopped:\n${stdout}\n${stderr}`);
    }
    await sleep(20);
  }
  const signalledAt = Date.now();
  child.kill(signal);
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [status, endedBy] = await exited;
  const stopMs = Date.now() - signalledAt;
  clearTimeout(killer);
  // The output is complete once the pipes close; a broker left running would hold them open.
  await Promise.race([closed, sleep(2_000)]);
  child.stdout.destroy();
  child.stderr.destroy();
  return {
    status,
    signal: endedBy,
    stopMs,
    stdout,
    stderr,
    fluxCalls: readRecords(join(sandbox.root, 'argv')),
  };
}

describe('entrypointScript stopping on TERM', () => {
  const brokerUp = (sandbox: Sandbox) => () => existsSync(join(sandbox.root, 'broker-up'));
  const starts = (run: Run) => run.fluxCalls.filter((call) => call[0] === 'start');

  for (const [brokerName, logging] of [
    ['flux-broker-1', {}],
    ['flux-broker', { strict: true, timed: true }],
  ] as const) {
    it(`worker: the broker (${brokerName}) gets the TERM, is not restarted, and the pod exits 0 at once (logging ${JSON.stringify(logging)})`, async () => {
      const sandbox = makeSandbox();
      addWaitingBroker(sandbox, brokerName);
      const run = await runScriptAndStop(
        sandbox,
        sandboxInput(sandbox, { logging }),
        'flux-sample-1',
        brokerUp(sandbox),
        { STUB_STOP_EXIT: '1' },
      );
      assert.equal(run.signal, null, 'bash trapped the TERM');
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(brokerEvents(sandbox), ['TERM', 'shut down']);
      assert.deepEqual(starts(run), [startWords(sandbox)]);
      const [broker] = brokerPids(sandbox);
      assert.match(run.stdout, /^flux-operator: got SIGTERM: stopping$/m);
      assert.match(
        run.stdout,
        new RegExp(`^flux-operator: passing SIGTERM on to the broker \\(pid ${broker}\\)$`, 'm'),
      );
      assert.match(
        run.stdout,
        /^flux-operator: told to stop \(SIGTERM\): the worker broker exited with status 1, worker done$/m,
      );
      assert.doesNotMatch(run.stdout, /retrying/);
      assert.ok(run.stopMs < 5_000, `stopped in ${run.stopMs} ms`);
    });
  }

  it('interactive lead behind a runuser that SIGKILLs 2 s after passing TERM on: the broker gets it from the script, shuts down in its own time, and the lead exits with its status', async () => {
    const sandbox = makeSandbox();
    addUserDatabase(sandbox, 'fluxtest:x:1234:1234::/home/fluxtest:/bin/bash\n');
    addCommand(sandbox, 'runuser', KILLING_RUNUSER);
    addCommand(sandbox, 'sudo', KILLING_RUNUSER);
    addWaitingBroker(sandbox, 'flux-broker-0');
    const input = sandboxInput(sandbox, {
      fluxUser: { name: 'fluxtest', uid: 1000 },
      program: { kind: 'interactive' },
      hooks: { post: 'echo "post $status" >>"$HOOK_LOG"' },
    });
    const run = await runScriptAndStop(sandbox, input, 'flux-sample-0', brokerUp(sandbox), {
      STUB_STOP_SECONDS: '3',
      STUB_STOP_EXIT: '129',
    });
    assert.equal(run.signal, null, 'bash trapped the TERM');
    assert.equal(run.status, 129, run.stderr);
    // Not killed by the runuser: it never got the TERM, and the broker finished its 3 s shutdown.
    assert.deepEqual(brokerEvents(sandbox), ['TERM', 'shut down']);
    assert.equal(existsSync(join(sandbox.root, 'runuser-signals')), false);
    assert.deepEqual(starts(run), [[...startWords(sandbox), 'sleep', 'inf']]);
    const [broker] = brokerPids(sandbox);
    assert.match(
      run.stdout,
      new RegExp(`^flux-operator: passing SIGTERM on to the broker \\(pid ${broker}\\)$`, 'm'),
    );
    assert.match(run.stdout, /^flux-operator: the lead broker exited with status 129$/m);
    assert.equal(readFileSync(sandbox.hookLog, 'utf8'), 'post 129\n');
    assert.ok(run.stopMs >= 3_000 && run.stopMs < 8_000, `stopped in ${run.stopMs} ms`);
  });

  it('a broker the script cannot recognise (renamed by a wrapper): its background job gets the TERM', async () => {
    const sandbox = makeSandbox();
    addWaitingBroker(sandbox);
    const run = await runScriptAndStop(sandbox, sandboxInput(sandbox), 'flux-sample-1', brokerUp(sandbox));
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(brokerEvents(sandbox), ['TERM', 'shut down']);
    assert.equal(starts(run).length, 1);
    assert.ok(run.stopMs < 5_000, `stopped in ${run.stopMs} ms`);
  });

  it('worker: a TERM during the pause before a retry ends it at once, with no other attempt', async () => {
    const sandbox = makeSandbox();
    writeFileSync(join(sandbox.root, 'worker-exits'), '1\n');
    const input = sandboxInput(sandbox, { workerRestart: { delaySeconds: 30 } });
    const run = await runScriptAndStop(sandbox, input, 'flux-sample-1', (stdout) =>
      stdout.includes('exited with status 1: retrying in 30 s'),
    );
    assert.equal(run.signal, null, 'bash trapped the TERM');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(starts(run).length, 1);
    assert.match(run.stdout, /^flux-operator: told to stop \(SIGTERM\): worker done$/m);
    assert.ok(run.stopMs < 5_000, `stopped in ${run.stopMs} ms`);
  });

  it('a TERM before the broker started: no broker starts; a worker exits 0, the lead 143', async () => {
    const pre = ': >"$STUB_DIR/pre-ran"; sleep 1';
    for (const [hostname, status, message] of [
      ['flux-sample-1', 0, /^flux-operator: told to stop \(SIGTERM\): worker done$/m],
      ['flux-sample-0', 143, /^flux-operator: told to stop \(SIGTERM\) before the lead broker started$/m],
    ] as const) {
      const sandbox = makeSandbox();
      const input = sandboxInput(sandbox, { hooks: { pre, post: 'echo post >>"$HOOK_LOG"' } });
      const run = await runScriptAndStop(sandbox, input, hostname, () =>
        existsSync(join(sandbox.root, 'pre-ran')),
      );
      assert.equal(run.signal, null, `${hostname}: bash trapped the TERM`);
      assert.equal(run.status, status, run.stderr);
      assert.deepEqual(starts(run), [], hostname);
      assert.match(run.stdout, message);
      assert.equal(existsSync(sandbox.hookLog), false, `${hostname}: no post hook without a broker`);
    }
  });
});
