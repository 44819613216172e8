import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_REVIVALS, clientReviver, lastErrorLine } from '../../../workbench/src/localcluster/revive.ts';
import { isAlive } from '../../../workbench/src/localcluster/procfs.ts';
import { eventually } from '../eventually.ts';

/** A cluster folder whose kwok.yaml lists etcd and a "controller manager" that is `sleep` marked with the folder. */
function clusterFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'revive-'));
  writeFileSync(
    path.join(dir, 'kwok.yaml'),
    [
      'kind: KwokctlConfiguration',
      'components:',
      '- name: etcd',
      '  binary: /bin/etcd-that-is-not-there',
      '- name: kube-controller-manager',
      '  binary: /bin/sh',
      `  args: [-c, 'exec sleep 60', ${JSON.stringify(path.join(dir, 'marker'))}]`,
      '',
    ].join('\n'),
  );
  mkdirSync(path.join(dir, 'logs'));
  writeFileSync(
    path.join(dir, 'logs', 'kube-controller-manager.log'),
    [
      'I1126 01:31:32.954454   10123 secure_serving.go:211] Serving securely on 127.0.0.1:32763',
      'E1126 01:31:53.085228   10123 controllermanager.go:250] "Error building controller context" err="failed to wait for apiserver being healthy"',
      '',
    ].join('\n'),
  );
  return dir;
}

function pidOf(dir: string): number {
  return Number(readFileSync(path.join(dir, 'pids', 'kube-controller-manager.pid'), 'utf8'));
}

describe('reviving the API server clients of a cluster coming up', () => {
  it('names the last error of a component from its log, without the klog header', () => {
    const dir = clusterFolder();
    try {
      assert.equal(
        lastErrorLine(dir, 'kube-controller-manager'),
        'controllermanager.go:250] "Error building controller context" err="failed to wait for apiserver being healthy"',
      );
      assert.equal(lastErrorLine(dir, 'kube-scheduler'), '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts a client that exited again, says why, leaves the servers and the running alone, and gives up after a few', async () => {
    const dir = clusterFolder();
    const lines: string[] = [];
    const started: number[] = [];
    // What the cluster's status reads: the live processes whose command line names the folder.
    const processes = () =>
      started
        .filter((pid) => isAlive(pid))
        .map(() => ({ command: `/bin/sh -c exec sleep 60 ${path.join(dir, 'marker')}` }));
    const revive = clientReviver({
      clusterDir: dir,
      name: 'probe',
      progress: (l) => lines.push(l),
      processes,
    });
    try {
      for (let round = 1; round <= MAX_REVIVALS + 1; round++) {
        revive();
        if (round <= MAX_REVIVALS) {
          await eventually(() => lines.length === round, `start ${round}`);
          started.push(pidOf(dir));
          assert.ok(isAlive(pidOf(dir)), 'it runs again');
          // Running: the next check (a second later) leaves it alone.
          await sleep(1_050);
          revive();
          assert.equal(lines.length, round, 'a running client is left alone');
          process.kill(pidOf(dir), 'SIGKILL');
          await eventually(() => !isAlive(pidOf(dir)), 'it exited');
          await sleep(1_050);
        }
      }
      assert.equal(lines.length, MAX_REVIVALS, `no more than ${MAX_REVIVALS} starts`);
      assert.equal(
        lines[0],
        'cluster probe: kube-controller-manager exited while the cluster came up (controllermanager.go:250] "Error building controller context" err="failed to wait for apiserver being healthy"); starting it again',
      );
      assert.ok(!lines.some((line) => line.includes('etcd')), 'etcd is no client: never started here');
    } finally {
      for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
