import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  componentSpecs,
  healthy,
  readKwokctlConfig,
  startComponent,
} from '../../../workbench/src/localcluster/components.ts';
import { isAlive } from '../../../workbench/src/localcluster/procfs.ts';
import { eventually } from '../eventually.ts';

describe('control-plane components', () => {
  it('reads them from kwok.yaml in kwokctl order, skipping entries without a binary', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'components-'));
    try {
      writeFileSync(
        path.join(dir, 'kwok.yaml'),
        [
          'apiVersion: config.kwok.x-k8s.io/v1alpha1',
          'kind: KwokctlConfiguration',
          'components:',
          '- name: etcd',
          '  binary: /bin/etcd',
          '  args: [--name=node0]',
          '  workDir: /w',
          '  ports: [{name: http, port: 32765, protocol: TCP}]',
          '- name: kube-apiserver',
          '  binary: /bin/kube-apiserver',
          '- name: broken',
          '---',
          'kind: Stage',
          '',
        ].join('\n'),
      );
      const config = readKwokctlConfig(dir);
      assert.ok(config);
      assert.deepEqual(componentSpecs(config, dir), [
        { name: 'etcd', binary: '/bin/etcd', args: ['--name=node0'], workDir: '/w', ports: [32765] },
        { name: 'kube-apiserver', binary: '/bin/kube-apiserver', args: [], workDir: dir, ports: [] },
      ]);
      assert.equal(readKwokctlConfig(path.join(dir, 'missing')), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts one detached as kwokctl does: its pid file, its output appended to its log', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'components-'));
    try {
      writeFileSync(path.join(dir, 'before.log'), '');
      const pid = startComponent(dir, {
        name: 'echoer',
        binary: '/bin/sh',
        args: ['-c', 'echo started in "$PWD"; exec sleep 30'],
        workDir: dir,
        ports: [],
      });
      assert.equal(readFileSync(path.join(dir, 'pids', 'echoer.pid'), 'utf8'), String(pid));
      assert.ok(isAlive(pid));
      await eventually(
        () => readFileSync(path.join(dir, 'logs', 'echoer.log'), 'utf8') !== '',
        'its log line',
      );
      assert.equal(readFileSync(path.join(dir, 'logs', 'echoer.log'), 'utf8'), `started in ${dir}\n`);
      process.kill(pid, 'SIGKILL');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is not healthy when nothing answers on its port', async () => {
    assert.equal(await healthy(1, 500), false);
  });
});
