// `cluster:up -- --name X` starts a second, independent cluster bound to 127.0.0.1, and
// `cluster:down -- --name X` leaves no process and no listening port of it behind. Uses its own cluster
// so the shared default one (which other tests use) keeps running.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import {
  kubeconfigPath,
  listeningSockets,
  listeningSocketsOf,
  stateDir,
  status,
} from '../../workbench/src/localcluster/index.ts';
import { apiClients } from '../../src/kube/api-clients.ts';
import { accessFromKubeconfig } from '../../src/kube/cluster-access.ts';
import { cluster } from '../harness/cluster.ts';

const run = promisify(execFile);
const script = path.resolve(import.meta.dirname, '../../hack/cluster.ts');

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Whether the process exists and is not a zombie (exited, awaiting its reaper: it holds no port). */
function alive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
}

test('cluster:down stops a named cluster and leaves nothing listening', { timeout: 600_000 }, async () => {
  await cluster(); // the shared default cluster is up (and must stay up)
  const name = `down-${process.pid}`;
  const def = status();
  assert.ok(def.running, 'the default cluster runs');

  const upRun = await run(process.execPath, [script, 'up', '--name', name], { timeout: 300_000 });
  const kubeconfig = kubeconfigPath(name);
  assert.equal(kubeconfig, path.join(stateDir(), name, 'kubeconfig'));
  assert.match(upRun.stdout, new RegExp(`KUBECONFIG=${kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.ok(existsSync(kubeconfig));

  try {
    const st = status({ name });
    assert.ok(st.running, `cluster ${name} runs: ${JSON.stringify(st.components)}`);
    const commands = st.processes.map((p) => path.basename(p.command.split(' ')[0] ?? ''));
    for (const c of [
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kwok-controller',
    ]) {
      assert.ok(commands.includes(c), `${c} runs (have ${commands.join(', ')})`);
    }
    assert.ok(st.listening.length >= 5, `listens on ports: ${JSON.stringify(st.listening)}`);
    for (const s of st.listening) {
      assert.equal(s.address, '127.0.0.1', `port ${s.port} is bound to 127.0.0.1 only`);
    }
    // Its ports do not collide with the default cluster's.
    const defaultPorts = new Set(def.listening.map((s) => s.port));
    assert.deepEqual(
      st.listening.filter((s) => defaultPorts.has(s.port)),
      [],
    );
    // It is a usable, separate cluster.
    const nodes = await apiClients(accessFromKubeconfig(kubeconfig)).core.listNode();
    assert.equal(nodes.items.length, 4);

    const downRun = await run(process.execPath, [script, 'down', '--name', name], { timeout: 180_000 });
    assert.match(downRun.stderr, /stopped cluster/);

    for (const p of st.processes) assert.ok(!alive(p.pid), `process ${p.pid} (${p.command}) is gone`);
    const ports = new Set([...st.listening.map((s) => s.port), ...Object.values(st.ports)]);
    // Other clusters of this run (the default one, `second` for bursting tests) may start meanwhile
    // and get a port this one freed: theirs are not leftovers.
    const otherPids = [status(), status({ name: 'second' })].flatMap((other) =>
      other.processes.map((p) => p.pid),
    );
    const taken = listeningSocketsOf(otherPids);
    const takenPorts = new Set(taken.map((s) => s.port));
    const takenInodes = new Set(taken.map((s) => s.inode));
    const stillListening = listeningSockets().filter((s) => ports.has(s.port) && !takenInodes.has(s.inode));
    assert.deepEqual(stillListening, [], 'no port of the stopped cluster is listening');
    for (const port of ports) {
      if (!takenPorts.has(port)) assert.ok(await refused(port), `127.0.0.1:${port} refuses connections`);
    }
    const after = status({ name });
    assert.equal(after.exists, false);
    assert.deepEqual(after.processes, []);
    assert.ok(!existsSync(kubeconfig), 'its kubeconfig is removed');

    // Stopping again is harmless, and the default cluster is untouched.
    const again = await run(process.execPath, [script, 'down', '--name', name], { timeout: 60_000 });
    assert.match(again.stderr, /nothing to stop/);
    assert.ok(status().running, 'the default cluster still runs');
  } finally {
    await run(process.execPath, [script, 'down', '--name', name], { timeout: 180_000 }).catch(() => {});
  }
});
