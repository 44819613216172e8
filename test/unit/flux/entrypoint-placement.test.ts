// The entrypoint's placement (docs/mpi.md): what R lists of a pod and whether Flux binds tasks to
// cores, run under bash with a stub of the view's `flux`. The CPUs the script may run on are this
// process's own (the same cpuset), read here from /proc as the script reads them.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entrypointScript } from '../../../src/flux/entrypoint.ts';
import type { EntrypointInput, PlacementInput } from '../../../src/flux/entrypoint.ts';

const sandboxes: string[] = [];
after(() => {
  for (const sandbox of sandboxes) rmSync(sandbox, { recursive: true, force: true });
});

/** The CPUs this process may run on, as the kernel lists them, and how many. */
function allowedCpus(): { list: string; count: number } {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Cpus_allowed_list:'));
  assert.ok(line, '/proc/self/status lists the allowed CPUs');
  const list = line.slice('Cpus_allowed_list:'.length).trim();
  let count = 0;
  for (const range of list.split(',')) {
    const [first = '', last = first] = range.split('-');
    count += Number(last) - Number(first) + 1;
  }
  return { list, count };
}

/**
 * The view's `flux`: records each call's words; `R encode --local` is the pod's hardware (STUB_CORES
 * cores), `R decode --count=core` counts it, `R encode --cores=...` writes what it was asked;
 * `start` runs nothing.
 */
const FLUX_STUB = String.raw`#!/bin/bash
{ for arg in "$@"; do printf '%s\037' "$arg"; done; printf '\036'; } >>"$STUB_DIR/flux-calls"
case "$1 $2" in
  "R encode") shift 2; if [ "$*" = --local ]; then echo "local:$STUB_CORES"; else echo "R $*"; fi ;;
  "R decode") IFS=: read -r _ count; echo "$count" ;;
esac
`;

interface Sandbox {
  root: string;
  view: string;
}

function makeSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'flux-entrypoint-placement-'));
  sandboxes.push(root);
  const view = join(root, 'view');
  mkdirSync(join(view, 'bin'), { recursive: true });
  mkdirSync(join(view, 'etc', 'flux', 'shell', 'lua.d'), { recursive: true });
  writeFileSync(join(view, 'etc', 'flux', 'shell', 'initrc.lua'), '-- Flux initrc\n');
  writeFileSync(join(view, 'bin', 'flux'), FLUX_STUB, { mode: 0o755 });
  // The flux-view sidecar's marker: the copy is whole.
  writeFileSync(`${view}.complete`, 'prefix /mnt/flux/view\n');
  mkdirSync(join(root, 'secrets'));
  writeFileSync(join(root, 'secrets', 'curve.cert'), 'CERTIFICATE\n');
  writeFileSync(join(root, 'flux-calls'), '');
  return { root, view };
}

function input(sandbox: Sandbox, placement: PlacementInput | undefined): EntrypointInput {
  const { root, view } = sandbox;
  return {
    jobName: 'mpi',
    fluxInstallRoot: view,
    view: { path: view, commandDir: join(root, 'bin'), environmentFile: join(root, 'flux-view.sh') },
    paths: {
      configDir: join(root, 'config'),
      curveCertSourcePath: join(root, 'secrets', 'curve.cert'),
      curveCertPath: join(root, 'curve.cert'),
      resourcePath: join(root, 'R'),
      runDir: join(root, 'run'),
      stateDir: join(root, 'state'),
    },
    resource: { writtenBy: 'pod', hostlist: 'mpi-[0-1]' },
    ...(placement !== undefined ? { placement } : {}),
    broker: { tbon: { topology: 'kary:2' }, logLevel: 6, connectTimeout: '5s', size: 2, listedSize: 2 },
    program: { kind: 'interactive' },
    workerRestart: { delaySeconds: 0 },
  };
}

interface Run {
  status: number | null;
  stdout: string;
  calls: string[][];
  /** The words of `flux start` (the worker's: pod mpi-1). */
  start: string[];
  /** R as the pod wrote it. */
  resource: string;
}

function run(sandbox: Sandbox, entry: EntrypointInput, cores: number): Run {
  const script = join(sandbox.root, 'entrypoint.sh');
  writeFileSync(script, entrypointScript(entry), { mode: 0o755 });
  const bin = join(sandbox.root, 'stub-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'uname'), '#!/bin/bash\necho mpi-1\n', { mode: 0o755 });
  const result = spawnSync('bash', [script], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { PATH: `${bin}:/usr/bin:/bin`, STUB_DIR: sandbox.root, STUB_CORES: String(cores) },
  });
  const calls = readFileSync(join(sandbox.root, 'flux-calls'), 'utf8')
    .split('\x1e')
    .slice(0, -1)
    .map((record) => record.split('\x1f').slice(0, -1));
  return {
    status: result.status,
    stdout: result.stdout + result.stderr,
    calls,
    start: calls.find((call) => call[0] === 'start') ?? [],
    resource: readFileSync(join(sandbox.root, 'R'), 'utf8'),
  };
}

const INITRC_OPTION = '-Sconf.shell_initrc=';

describe('entrypoint placement', () => {
  const allowed = allowedCpus();

  it('shared CPUs without a limit: R lists the cores Flux finds, and the instance binds no task unless the job asks', () => {
    const sandbox = makeSandbox();
    const shellRcDir = join(sandbox.root, 'shell');
    // One more whole CPU asked than the pod may run on: its CPUs are not its own.
    const result = run(sandbox, input(sandbox, { shellRcDir, exclusiveCpus: allowed.count + 1 }), 3);
    assert.equal(result.status, 0, result.stdout);
    assert.equal(result.resource, 'R --hosts=mpi-[0-1] --local\n');
    assert.ok(result.start.includes(`${INITRC_OPTION}${shellRcDir}/initrc.lua`), result.start.join(' '));
    const initrc = readFileSync(join(shellRcDir, 'initrc.lua'), 'utf8');
    assert.match(initrc, /^if shell\.options\["cpu-affinity"\] == nil then$/m);
    assert.match(initrc, /^ {2}shell\.options\["cpu-affinity"\] = "off"$/m);
    // Then Flux's own initrc, whose lua.d (openmpi.lua) the shell finds beside ours.
    assert.ok(initrc.endsWith(`source ([==[${sandbox.view}/etc/flux/shell/initrc.lua]==])\n`), initrc);
    assert.equal(readlinkSync(join(shellRcDir, 'lua.d')), `${sandbox.view}/etc/flux/shell/lua.d`);
    assert.equal(statSync(join(shellRcDir, 'initrc.lua')).mode & 0o777, 0o644);
    assert.match(result.stdout, new RegExp(`CPUs ${allowed.list} may be shared with other pods`));
  });

  it('CPUs of its own: Flux binds, with every core it finds, whatever the limit', () => {
    const sandbox = makeSandbox();
    const shellRcDir = join(sandbox.root, 'shell');
    const result = run(sandbox, input(sandbox, { shellRcDir, exclusiveCpus: allowed.count, cpuLimit: 1 }), 4);
    assert.equal(result.status, 0, result.stdout);
    // The limit bounds shared cores only: these are the pod's own, all of them in R.
    assert.equal(result.resource, 'R --hosts=mpi-[0-1] --local\n');
    assert.equal(
      result.start.filter((word) => word.startsWith(INITRC_OPTION)).length,
      0,
      result.start.join(' '),
    );
    assert.match(result.stdout, new RegExp(`CPUs ${allowed.list} are this pod's own`));
  });

  it('a CPU limit bounds the shared cores in R; GPUs are ids from 0 on every broker', () => {
    const sandbox = makeSandbox();
    const result = run(
      sandbox,
      input(sandbox, { shellRcDir: join(sandbox.root, 'shell'), cpuLimit: 2, gpus: 2 }),
      8,
    );
    assert.equal(result.status, 0, result.stdout);
    assert.equal(result.resource, 'R --hosts=mpi-[0-1] --cores=0-1 --gpus=0-1\n');
    // One of each is the id 0 alone: Flux refuses the cores `0-0` and drops the GPUs `0-0`.
    const one = run(
      sandbox,
      input(sandbox, { shellRcDir: join(sandbox.root, 'shell'), cpuLimit: 1, gpus: 1 }),
      8,
    );
    assert.equal(one.status, 0, one.stdout);
    assert.equal(one.resource, 'R --hosts=mpi-[0-1] --cores=0 --gpus=0\n');
  });

  it('a planted link where the initrc goes is replaced, never followed', () => {
    const sandbox = makeSandbox();
    const shellRcDir = join(sandbox.root, 'shell');
    const target = join(sandbox.root, 'elsewhere');
    mkdirSync(target);
    spawnSync('ln', ['-s', target, shellRcDir]);
    const result = run(sandbox, input(sandbox, { shellRcDir }), 2);
    assert.equal(result.status, 0, result.stdout);
    assert.ok(statSync(join(shellRcDir, 'initrc.lua')).isFile());
    assert.equal(spawnSync('ls', ['-A', target], { encoding: 'utf8' }).stdout, '');
  });

  it('without placement (inputs made before it), R is what Flux finds and Flux binds by default', () => {
    const sandbox = makeSandbox();
    const result = run(sandbox, input(sandbox, undefined), 2);
    assert.equal(result.status, 0, result.stdout);
    assert.equal(result.resource, 'R --hosts=mpi-[0-1] --local\n');
    assert.equal(result.start.filter((word) => word.startsWith(INITRC_OPTION)).length, 0);
  });

  it('where Flux cannot count the cores, R is encoded from the local hardware as before', () => {
    const sandbox = makeSandbox();
    const result = run(sandbox, input(sandbox, { shellRcDir: join(sandbox.root, 'shell'), gpus: 1 }), 0);
    assert.equal(result.status, 0, result.stdout);
    assert.equal(result.resource, 'R --hosts=mpi-[0-1] --local\n');
  });

  it('refuses placement inputs that would make a broken script', () => {
    const sandbox = makeSandbox();
    const shellRcDir = join(sandbox.root, 'shell');
    assert.throws(
      () => entrypointScript(input(sandbox, { shellRcDir: 'relative' })),
      /placement\.shellRcDir/,
    );
    assert.throws(
      () => entrypointScript(input(sandbox, { shellRcDir, exclusiveCpus: 0 })),
      /placement\.exclusiveCpus/,
    );
    assert.throws(
      () => entrypointScript(input(sandbox, { shellRcDir, cpuLimit: 1.5 })),
      /placement\.cpuLimit/,
    );
    assert.throws(() => entrypointScript(input(sandbox, { shellRcDir, gpus: -1 })), /placement\.gpus/);
  });
});
