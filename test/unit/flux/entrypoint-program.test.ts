// The lead's command whose own program is not in the image: which program the operator tells the
// entrypoint about (`commandProgram`, only a plain first word), and the entrypoint run under bash with a
// stub `flux` whose initial program really runs (`bash -c <command>`), writing the termination message
// the operator turns into the Failed condition (status.ts `programFailure` reads it here too).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { commandProgram, entrypointScript } from '../../../src/flux/entrypoint.ts';
import type { EntrypointInput, InitialProgram } from '../../../src/flux/entrypoint.ts';
import { programFailure } from '../../../src/controllers/minicluster/status.ts';

describe('commandProgram', () => {
  it("is the command's first plain word after any NAME=value, and nothing else of the command", () => {
    const cases: [string, string | undefined][] = [
      ['lmpx -in in.lj', 'lmpx'],
      ['  lmp\t-in in.lj\n', 'lmp'],
      ['/usr/bin/lmp -in in.lj', '/usr/bin/lmp'],
      ['./run.sh --token s3cret', './run.sh'],
      ['OMP_NUM_THREADS=1 TOKEN=s3cret lmpx -in in.lj', 'lmpx'],
      ['EMPTY= lmpx', 'lmpx'],
      ['flux run -n 2 hostname', 'flux'],
      ['echo hello', 'echo'],
      // Not a plain word: quoted, expanded, a redirection, a subshell, a quoted assignment's value.
      ['"lmp x" -in in.lj', undefined],
      ['$HOME/bin/lmp', undefined],
      ['~/bin/lmp', undefined],
      ['lmp>out', undefined],
      ['(cd dir && lmp)', undefined],
      ['TOKEN="a b" lmp', undefined],
      ['TOKEN=$(cat /secret) lmp', undefined],
      // Only assignments, nothing at all, a name too long to be worth showing.
      ['A=1 B=2', undefined],
      ['   ', undefined],
      [`${'x'.repeat(101)} -v`, undefined],
      [`${'x'.repeat(100)} -v`, 'x'.repeat(100)],
    ];
    for (const [command, program] of cases) assert.equal(commandProgram(command), program, command);
  });
});

describe('the program parameters', () => {
  const parameters = (program: InitialProgram, terminationMessagePath?: string) =>
    entrypointScript({
      ...baseInput('/sandbox', '/sandbox/flux'),
      paths: { ...basePaths('/sandbox'), ...(terminationMessagePath ? { terminationMessagePath } : {}) },
      program,
    })
      .split('\n')
      .filter((line) => /^(program_name|termination_log)=/.test(line));

  it('names the program of a submitted command or a launcher, with Kubernetes` termination file', () => {
    assert.deepEqual(parameters({ kind: 'submit', command: 'TOKEN=s3cret lmpx -in in.lj', tasks: 2 }), [
      "program_name='lmpx'",
      'termination_log=/dev/termination-log',
    ]);
    assert.deepEqual(parameters({ kind: 'launcher', command: './run.sh' }, '/sandbox/termination-log'), [
      "program_name='./run.sh'",
      'termination_log=/sandbox/termination-log',
    ]);
  });

  it('names none for many programs, a program that stays up, or a command without a plain first word', () => {
    const none: InitialProgram[] = [
      { kind: 'interactive' },
      { kind: 'batch', commands: 'lmpx\nlmpy' },
      { kind: 'batchScript', script: 'lmpx', nodes: 1 },
      { kind: 'submit', command: 'lmpx', tasks: 1, whenDone: 'stayUp' },
      { kind: 'submit', command: '"$PROGRAM" -v', tasks: 1 },
    ];
    for (const program of none) assert.deepEqual(parameters(program), [], JSON.stringify(program));
  });
});

// ---------------------------------------------------------------------------------------------
// Running the script under bash: a stub `flux` that runs the initial program (`bash -c <text>`), and
// whose `submit` runs its command's words (as Flux's job would, in this PATH) and exits with their status.

const sandboxes: string[] = [];
after(() => {
  for (const sandbox of sandboxes) rmSync(sandbox, { recursive: true, force: true });
});

const FLUX_STUB = String.raw`#!/bin/bash
case "$1" in
  submit)
    shift
    while [ "$#" -gt 0 ]; do
      case "$1" in
        -n | -N) shift 2 ;;
        -*) shift ;;
        *) break ;;
      esac
    done
    bash -c "$*"
    ;;
  start)
    shift
    while [ "$#" -gt 0 ]; do
      case "$1" in
        --config) shift 2 ;;
        -*) shift ;;
        *) break ;;
      esac
    done
    "$@"
    ;;
esac
`;

function basePaths(root: string): EntrypointInput['paths'] {
  return {
    configDir: join(root, 'etc/flux/config'),
    curveCertSourcePath: join(root, 'secrets/curve.cert'),
    curveCertPath: join(root, 'etc/flux/system/curve.cert'),
    resourcePath: join(root, 'etc/flux/system/R'),
    runDir: join(root, 'run/flux'),
    stateDir: join(root, 'var/lib/flux'),
  };
}

function baseInput(root: string, installRoot: string): EntrypointInput {
  const me = userInfo();
  return {
    jobName: 'flux-sample',
    fluxInstallRoot: installRoot,
    fluxUser: { name: me.username, uid: me.uid },
    paths: { ...basePaths(root), terminationMessagePath: join(root, 'termination-log') },
    resource: { writtenBy: 'operator' },
    broker: { tbon: { fanout: 256 }, logLevel: 6, connectTimeout: '5s', size: 1, listedSize: 1 },
    program: { kind: 'submit', command: 'echo hello', tasks: 1 },
    workerRestart: { delaySeconds: 0 },
  };
}

interface LeadRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The termination message, or undefined when none was written. */
  terminationMessage: string | undefined;
}

/** Runs the lead pod's entrypoint in a new sandbox with `program`; `prepare` adds files to the sandbox. */
function runLead(
  program: InitialProgram,
  options: { prepare?: (root: string) => void; adjust?: (input: EntrypointInput) => EntrypointInput } = {},
): LeadRun {
  const root = mkdtempSync(join(tmpdir(), 'flux-entrypoint-program-'));
  sandboxes.push(root);
  const installRoot = join(root, 'flux');
  mkdirSync(join(installRoot, 'bin'), { recursive: true });
  mkdirSync(join(root, 'secrets'));
  writeFileSync(join(root, 'secrets', 'curve.cert'), 'CERTIFICATE\n', { mode: 0o644 });
  writeFileSync(join(installRoot, 'bin', 'flux'), FLUX_STUB, { mode: 0o755 });
  writeFileSync(join(installRoot, 'bin', 'uname'), '#!/bin/sh\necho flux-sample-0\n', { mode: 0o755 });
  options.prepare?.(root);
  const input = { ...baseInput(root, installRoot), program };
  const script = join(root, 'entrypoint.sh');
  writeFileSync(script, entrypointScript(options.adjust ? options.adjust(input) : input), { mode: 0o755 });
  const result = spawnSync('bash', [script], {
    encoding: 'utf8',
    timeout: 20_000,
    cwd: root,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
  });
  const termination = join(root, 'termination-log');
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    terminationMessage: existsSync(termination) ? readFileSync(termination, 'utf8') : undefined,
  };
}

const NOT_FOUND = `the command's program "lmpx" was not found in the image (exit status 127)`;

describe('the entrypoint when the lead command`s program is missing', () => {
  it('a submitted command: exits 127, names the program on stderr and in the termination message', () => {
    const run = runLead({ kind: 'submit', command: 'TOKEN=s3cret lmpx -in in.lj', tasks: 1 });
    assert.equal(run.status, 127, run.stderr);
    assert.equal(run.terminationMessage, `${NOT_FOUND}\n`);
    assert.match(
      run.stderr,
      new RegExp(`^flux-operator: error: ${NOT_FOUND.replace(/[()]/g, '\\$&')}$`, 'm'),
    );
    assert.match(run.stdout, /^flux-operator: the lead broker exited with status 127$/m);
    assert.doesNotMatch(run.stderr + run.stdout, /s3cret/);
    // What the operator makes of it, for this exit status.
    assert.deepEqual(programFailure(run.terminationMessage, 127), {
      reason: 'ProgramNotFound',
      program: 'lmpx',
      problem: 'was not found in the image',
    });
  });

  it('a launcher: the same', () => {
    const run = runLead({ kind: 'launcher', command: 'lmpx -in in.lj' });
    assert.equal(run.status, 127, run.stderr);
    assert.equal(run.terminationMessage, `${NOT_FOUND}\n`);
  });

  it('a program that is there but not executable: exits 126 and says so', () => {
    const run = runLead(
      { kind: 'launcher', command: './run.sh --input in.lj' },
      { prepare: (root) => writeFileSync(join(root, 'run.sh'), '#!/bin/sh\n', { mode: 0o644 }) },
    );
    assert.equal(run.status, 126, run.stderr);
    const line = `the command's program "./run.sh" is not executable (exit status 126)`;
    assert.equal(run.terminationMessage, `${line}\n`);
    assert.deepEqual(programFailure(run.terminationMessage, 126), {
      reason: 'ProgramNotExecutable',
      program: './run.sh',
      problem: 'is not executable',
    });
  });

  it('a program that is there, whose own command is missing: only the status, no termination message', () => {
    // The program is found (a script in the working directory, a builtin): what it ran was not.
    const runs = [
      runLead(
        { kind: 'launcher', command: './run.sh' },
        { prepare: (root) => writeFileSync(join(root, 'run.sh'), '#!/bin/bash\nlmpx\n', { mode: 0o755 }) },
      ),
      runLead({ kind: 'submit', command: 'eval lmpx', tasks: 1 }),
    ];
    for (const run of runs) {
      assert.equal(run.status, 127, run.stderr);
      assert.equal(run.terminationMessage, undefined);
      assert.doesNotMatch(run.stderr, /flux-operator: error/);
    }
  });

  it('a program that runs, or fails otherwise: no termination message', () => {
    const ok = runLead({ kind: 'submit', command: 'echo hello', tasks: 1 });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^hello$/m);
    const failed = runLead({ kind: 'launcher', command: 'exit 127' });
    assert.equal(failed.status, 127, failed.stderr);
    assert.equal(failed.terminationMessage, undefined, '`exit` is a builtin, found');
    const other = runLead({ kind: 'launcher', command: 'false' });
    assert.equal(other.status, 1);
    assert.equal(other.terminationMessage, undefined);
  });

  it('strict mode, a termination file it cannot write: logs it, and the status stays the command`s', () => {
    const run = runLead(
      { kind: 'launcher', command: 'lmpx' },
      {
        adjust: (input) => ({
          ...input,
          paths: { ...input.paths, terminationMessagePath: join(input.paths.runDir, 'no/such/dir/log') },
          logging: { strict: true },
        }),
      },
    );
    assert.equal(run.status, 127, run.stderr);
    assert.match(
      run.stdout,
      /^flux-operator: cannot write the termination message to \S+\/no\/such\/dir\/log$/m,
    );
    assert.match(run.stderr, /^flux-operator: error: the command's program "lmpx" was not found/m);
  });
});
