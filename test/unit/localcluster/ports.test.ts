import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  choosePorts,
  COMPONENT_PORT_OPTIONS,
  portsHeldIn,
  portsInConfig,
  portsRegistered,
  registerConfig,
} from '../../../workbench/src/localcluster/ports.ts';

const config = (ports: Record<string, number>) =>
  [
    'apiVersion: config.kwok.x-k8s.io/v1alpha1',
    'kind: KwokctlConfiguration',
    'options:',
    '  runtime: binary',
    ...Object.entries(ports).map(([option, port]) => `  ${option}: ${port}`),
    '---',
    'kind: Stage',
    'options:',
    '  notAPort: 1',
    '  stagePort: 9',
    '',
  ].join('\n');

describe('local cluster ports', () => {
  it('gives each component option its own port, the highest first, skipping the unavailable ones', () => {
    const free = choosePorts(new Set());
    assert.deepEqual(Object.keys(free), [...COMPONENT_PORT_OPTIONS]);
    const chosen = Object.values(free);
    assert.equal(new Set(chosen).size, chosen.length);
    assert.equal(Math.max(...chosen), 32767);

    const taken = new Set([32767, 32765, 32764]);
    const next = Object.values(choosePorts(taken));
    assert.ok(next.every((port) => !taken.has(port)));
    assert.deepEqual(next, [32766, 32763, 32762, 32761, 32760, 32759]);
  });

  it('fails with a message when the range is used up', () => {
    const all = new Set<number>();
    for (let port = 1; port <= 65535; port++) all.add(port);
    assert.throws(() => choosePorts(all), /no free loopback ports left in 10001-32767/);
  });

  it('reads only the port options of the kwokctl configuration document', () => {
    assert.deepEqual(
      portsInConfig(config({ kubeApiserverPort: 32000, etcdPort: 31999, kwokVersion: 3 })),
      [32000, 31999],
    );
  });

  it('holds the ports of the configs written for kwokctl and of the clusters it recorded', () => {
    const workdir = mkdtempSync(path.join(tmpdir(), 'ports-'));
    try {
      writeFileSync(path.join(workdir, 'flux-a.config.yaml'), config({ kubeApiserverPort: 32001 }));
      writeFileSync(path.join(workdir, 'flux-a.lock'), '1');
      mkdirSync(path.join(workdir, 'clusters', 'flux-b'), { recursive: true });
      writeFileSync(path.join(workdir, 'clusters', 'flux-b', 'kwok.yaml'), config({ etcdPort: 32002 }));
      // A cluster folder kwokctl has not written its config into yet holds nothing.
      mkdirSync(path.join(workdir, 'clusters', 'flux-c'));
      assert.deepEqual([...portsHeldIn(workdir)].sort(), [32001, 32002]);
      assert.deepEqual([...portsHeldIn(path.join(workdir, 'absent'))], []);
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });

  it('sees the ports of other state folders through the machine-wide registry while their config exists', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'ports-registry-'));
    try {
      const registry = path.join(root, 'registry');
      const other = path.join(root, 'other-checkout', 'flux-default.config.yaml');
      mkdirSync(path.dirname(other));
      writeFileSync(other, config({ kubeApiserverPort: 32010, etcdPort: 32011 }));
      registerConfig(registry, other);
      registerConfig(registry, other); // registering again is one entry
      assert.equal(readdirSync(registry).length, 1);
      assert.deepEqual([...portsRegistered(registry)].sort(), [32010, 32011]);

      rmSync(other); // that cluster was deleted: its ports are free and its entry goes
      assert.deepEqual([...portsRegistered(registry)], []);
      assert.deepEqual(readdirSync(registry), []);
      assert.deepEqual([...portsRegistered(path.join(root, 'absent'))], []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
