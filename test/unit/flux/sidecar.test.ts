// The wrapper of a container beside the Flux container: its rendered variants pass shellcheck, and run
// under bash with only coreutils on PATH it puts the view's flux on PATH, waits for the pod's Flux
// socket (a real Unix socket, opened late), then runs servicePre, the script, the command and post.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sidecarScript, type SidecarInput } from '../../../src/flux/sidecar.ts';

const COREUTILS = [
  'cat',
  'cp',
  'dirname',
  'id',
  'ln',
  'ls',
  'mkdir',
  'mv',
  'readlink',
  'rm',
  'sleep',
  'uname',
];

const sandboxes: string[] = [];
after(() => {
  for (const sandbox of sandboxes) rmSync(sandbox, { recursive: true, force: true });
});

interface Sandbox {
  root: string;
  bin: string;
  view: string;
  log: string;
}

function makeSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'flux-sidecar-'));
  sandboxes.push(root);
  const bin = join(root, 'bin');
  mkdirSync(bin);
  for (const name of ['bash', ...COREUTILS]) {
    const program = ['/usr/bin', '/bin'].map((dir) => join(dir, name)).find(existsSync);
    if (program !== undefined) symlinkSync(program, join(bin, name));
  }
  const view = join(root, 'mnt', 'flux', 'view');
  mkdirSync(join(view, 'bin'), { recursive: true });
  writeFileSync(join(view, 'bin', 'flux'), '#!/bin/bash\necho "view flux $*"\n', { mode: 0o755 });
  // The flux-view sidecar's marker: the copy is whole.
  writeFileSync(`${view}.complete`, 'prefix /mnt/flux/view\n');
  return { root, bin, view, log: join(root, 'steps.log') };
}

function input(sandbox: Sandbox, overrides: Partial<SidecarInput> = {}): SidecarInput {
  return {
    containerName: 'sidecar',
    flux: { from: 'view', path: sandbox.view, commandDir: join(sandbox.root, 'mnt', 'flux', 'bin') },
    fluxSocket: join(sandbox.root, 'local'),
    command: 'echo "command $FLUX_URI" >>"$STEPS"; flux resource list >>"$STEPS"; exit 4',
    hooks: { servicePre: 'echo servicePre >>"$STEPS"', post: 'echo post >>"$STEPS"' },
    ...overrides,
  };
}

function scriptFile(sandbox: Sandbox, variant: SidecarInput): string {
  const path = join(sandbox.root, 'wrapper.sh');
  writeFileSync(path, sidecarScript(variant), { mode: 0o755 });
  return path;
}

function env(sandbox: Sandbox) {
  return { PATH: sandbox.bin, STEPS: sandbox.log };
}

describe('sidecarScript', () => {
  it('passes shellcheck and bash -n in its variants', () => {
    const sandbox = makeSandbox();
    const variants: SidecarInput[] = [
      input(sandbox),
      input(sandbox, { flux: { from: 'image', installRoot: '/usr' }, fluxSocket: undefined }),
      input(sandbox, {
        flux: {
          from: 'view',
          path: sandbox.view,
          commandDir: '/mnt/flux/bin',
          spackSoftware: { from: '/mnt/flux/software', to: '/opt/software' },
        },
      }),
      input(sandbox, {
        scriptPath: '/flux_operator/script-sidecar.sh',
        pythonPath: '/opt/py',
        hooks: { init: 'echo "unterminated', servicePre: "echo '", post: 'exit 3' },
        logging: { quiet: true, strict: true, debug: true },
      }),
    ];
    for (const variant of variants) {
      const script = sidecarScript(variant);
      const shellcheck = spawnSync('shellcheck', ['-s', 'bash', '-'], { input: script, encoding: 'utf8' });
      assert.equal(shellcheck.error, undefined, 'shellcheck must be installed');
      assert.equal(shellcheck.status, 0, shellcheck.stdout);
      assert.equal(spawnSync('bash', ['-n'], { input: script }).status, 0);
    }
  });

  it('rejects inputs that would make a broken script', () => {
    const sandbox = makeSandbox();
    assert.throws(() => sidecarScript(input(sandbox, { containerName: 'Side_Car' })), /not a DNS label/);
    assert.throws(
      () => sidecarScript(input(sandbox, { fluxSocket: 'run/local' })),
      /fluxSocket must be an absolute path/,
    );
  });

  it('waits for the Flux socket, then runs servicePre, the script, the command and post, with the view`s flux', async () => {
    const sandbox = makeSandbox();
    const scriptPath = join(sandbox.root, 'script.sh');
    writeFileSync(scriptPath, 'echo "script $0" >>"$STEPS"\n');
    const socket = join(sandbox.root, 'local');
    const child = spawn(join(sandbox.bin, 'bash'), [scriptFile(sandbox, input(sandbox, { scriptPath }))], {
      env: env(sandbox),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // servicePre runs before the wait; nothing else until the socket is there.
    await sleep(1500);
    assert.equal(readFileSync(sandbox.log, 'utf8'), 'servicePre\n');
    const server = createServer();
    server.listen(socket);
    await once(server, 'listening');
    try {
      const [status] = (await once(child, 'exit')) as [number];
      assert.equal(status, 4);
    } finally {
      server.close();
    }
    assert.equal(
      readFileSync(sandbox.log, 'utf8'),
      [
        'servicePre',
        `script ${scriptPath}`,
        `command local://${socket}`,
        'view flux resource list',
        'post',
        '',
      ].join('\n'),
    );
    assert.match(stdout, /waiting for the Flux instance of this pod/);
    assert.match(stdout, /the command of sidecar exited with status 4/);
  });

  it('without a socket to wait for, and quiet: runs at once and prints only what its command does', () => {
    const sandbox = makeSandbox();
    const variant = input(sandbox, {
      command: 'echo out; flux --version',
      hooks: { servicePre: 'echo hidden' },
      logging: { quiet: true },
    });
    delete variant.fluxSocket;
    const result = spawnSync(join(sandbox.bin, 'bash'), [scriptFile(sandbox, variant)], {
      env: env(sandbox),
      encoding: 'utf8',
      timeout: 10_000,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, 'out\nview flux --version\n');
  });

  it('a Spack view (the Go operator`s layout): copies its software to /opt/software, with the view`s Python', () => {
    const sandbox = makeSandbox();
    const shared = join(sandbox.root, 'mnt', 'flux');
    mkdirSync(join(shared, 'software', 'zeromq', 'lib'), { recursive: true });
    writeFileSync(join(shared, 'software', 'zeromq', 'lib', 'libzmq.so.5'), 'ZMQ');
    mkdirSync(join(sandbox.view, 'lib', 'python3.11', 'site-packages'), { recursive: true });
    const softwareDir = join(sandbox.root, 'opt', 'software');
    const variant = input(sandbox, {
      flux: {
        from: 'view',
        path: sandbox.view,
        commandDir: join(shared, 'bin'),
        spackSoftware: { from: join(shared, 'software'), to: softwareDir },
      },
      command: `cat ${softwareDir}/zeromq/lib/libzmq.so.5; echo; echo "$PYTHONPATH"`,
      logging: { quiet: true },
    });
    delete variant.fluxSocket;
    const result = spawnSync(join(sandbox.bin, 'bash'), [scriptFile(sandbox, variant)], {
      env: env(sandbox),
      encoding: 'utf8',
      timeout: 10_000,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `ZMQ\n${sandbox.view}/lib/python3.11/site-packages\n`);

    // An empty software folder is only where a Spack view's would be (flux.container.medium: Memory
    // mounts one there for either layout): not a Spack view, nothing copied.
    rmSync(join(shared, 'software'), { recursive: true });
    rmSync(softwareDir, { recursive: true });
    mkdirSync(join(shared, 'software'));
    const empty = spawnSync(join(sandbox.bin, 'bash'), [scriptFile(sandbox, variant)], {
      env: env(sandbox),
      encoding: 'utf8',
      timeout: 10_000,
    });
    assert.match(empty.stdout, /^\n\n$/, empty.stderr);
    assert.equal(existsSync(softwareDir), false, 'no software copied');
  });

  it('a failing script stops the container with its status, before the command', () => {
    const sandbox = makeSandbox();
    const scriptPath = join(sandbox.root, 'script.sh');
    writeFileSync(scriptPath, 'exit 7\n');
    const variant = input(sandbox, { scriptPath });
    delete variant.fluxSocket;
    const result = spawnSync(join(sandbox.bin, 'bash'), [scriptFile(sandbox, variant)], {
      env: env(sandbox),
      encoding: 'utf8',
      timeout: 10_000,
    });
    assert.equal(result.status, 7);
    assert.match(result.stderr, /the script of sidecar exited with status 7/);
    assert.equal(readFileSync(sandbox.log, 'utf8'), 'servicePre\n');
  });
  it('waits for the flux-view sidecar`s copy; fails with its words when it failed, before the command', () => {
    const sandbox = makeSandbox();
    rmSync(`${sandbox.view}.complete`);
    const variant = input(sandbox, { command: 'echo out; flux --version', logging: { quiet: true } });
    delete variant.fluxSocket;
    const script = scriptFile(sandbox, variant);
    const waited = spawnSync(
      join(sandbox.bin, 'bash'),
      ['-c', '(sleep 0.3 && : >"$1") & exec bash "$2"', 'with-copy', `${sandbox.view}.complete`, script],
      { env: env(sandbox), encoding: 'utf8', timeout: 10_000 },
    );
    assert.equal(waited.status, 0, waited.stderr);
    assert.equal(waited.stdout, 'out\nview flux --version\n');

    rmSync(`${sandbox.view}.complete`);
    writeFileSync(`${sandbox.view}.failed`, 'flux-view-init: the copy failed\n');
    const failed = spawnSync(join(sandbox.bin, 'bash'), [script], {
      env: env(sandbox),
      encoding: 'utf8',
      timeout: 10_000,
    });
    assert.equal(failed.status, 1);
    assert.equal(failed.stdout, '');
    assert.equal(
      failed.stderr,
      'flux-operator: error: the Flux view was not copied: flux-view-init: the copy failed\n',
    );
  });
});
