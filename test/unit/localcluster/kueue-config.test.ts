import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { goInstallArgs } from '../../../workbench/src/localcluster/kueue/build.ts';
import {
  kueueConfiguration,
  kueuePorts,
  portsOfConfiguration,
  portsOfConfigurationText,
  tokenKubeconfig,
} from '../../../workbench/src/localcluster/kueue/config.ts';
import { KUEUE_VERSION } from '../../../workbench/src/localcluster/kueue/paths.ts';
import { probeJob, QUEUE_NAME_LABEL } from '../../../workbench/src/localcluster/kueue/ready.ts';
import { freePorts, portsInConfig } from '../../../workbench/src/localcluster/ports.ts';

const ports = { webhook: 32001, health: 32002, metrics: 32003 };

describe("a local cluster's Kueue: what it is built from and what it reads", () => {
  it('is built from its own main package at the pinned version, which it reports', () => {
    const args = goInstallArgs();
    assert.equal(args[0], 'install');
    assert.equal(args.at(-1), `sigs.k8s.io/kueue/cmd/kueue@${KUEUE_VERSION}`);
    assert.match(args.join(' '), new RegExp(`pkg/version\\.GitVersion=${KUEUE_VERSION}`));
  });

  it('serves on loopback only, with certificates of its own, no leader election and batch/v1 Jobs', () => {
    const config = parse(kueueConfiguration(ports, '/state/certs', 'kueue-system')) as Record<
      string,
      unknown
    >;
    assert.equal(config.apiVersion, 'config.kueue.x-k8s.io/v1beta2');
    assert.equal(config.kind, 'Configuration');
    assert.equal(config.namespace, 'kueue-system');
    assert.deepEqual(config.webhook, { host: '127.0.0.1', port: 32001, certDir: '/state/certs' });
    assert.equal((config.health as Record<string, unknown>).healthProbeBindAddress, '127.0.0.1:32002');
    assert.deepEqual(config.metrics, { bindAddress: '127.0.0.1:32003' });
    assert.deepEqual(config.internalCertManagement, { enable: false });
    assert.deepEqual(config.leaderElection, { leaderElect: false });
    assert.deepEqual(config.featureGates, { VisibilityOnDemand: false });
    assert.ok((config.integrations as { frameworks: string[] }).frameworks.includes('batch/job'));
  });

  it('evicts an admitted Job whose pods are not Ready in 120 s, and admits it again after 10 s, 20 s, ...', () => {
    const config = parse(kueueConfiguration(ports, '/c', 'kueue-system')) as {
      waitForPodsReady?: Record<string, unknown>;
    };
    // As Kueue v0.17's Configuration (config.kueue.x-k8s.io/v1beta2, WaitForPodsReady) names them;
    // durations as metav1.Duration strings, the backoff in whole seconds.
    assert.deepEqual(config.waitForPodsReady, {
      timeout: '120s',
      recoveryTimeout: '120s',
      blockAdmission: false,
      requeuingStrategy: { timestamp: 'Eviction', backoffBaseSeconds: 10, backoffMaxSeconds: 300 },
    });
    assert.equal(
      (config.waitForPodsReady?.requeuingStrategy as Record<string, unknown>).backoffLimitCount,
      undefined,
      'retried without a limit (no deactivation)',
    );
  });

  it('names its ports so that the port registry holds them, and reads them back', () => {
    const text = kueueConfiguration(ports, '/c', 'kueue-system');
    assert.deepEqual(portsOfConfigurationText(text), ports);
    assert.deepEqual(portsInConfig(text).sort(), [32001, 32002, 32003]);
    assert.equal(portsOfConfiguration({ kind: 'Configuration', apiVersion: 'v1' }), undefined);
    assert.equal(portsOfConfiguration(null), undefined);
    assert.equal(portsOfConfigurationText(text.replace('127.0.0.1:32003', '"0"')), undefined);
    assert.deepEqual(kueuePorts(freePorts(new Set([32767]), 3)), {
      webhook: 32766,
      health: 32765,
      metrics: 32764,
    });
    assert.throws(() => kueuePorts([1, 2]), /three ports/);
  });

  it('reaches the API server as its ServiceAccount, trusting the CA file of the cluster', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kueue-kubeconfig-'));
    try {
      const file = path.join(dir, 'kubeconfig');
      const user = 'system:serviceaccount:kueue-system:kueue-controller-manager';
      writeFileSync(
        file,
        tokenKubeconfig({ server: 'https://127.0.0.1:32767', caFile: '/pki/ca.crt' }, 'T0K', user),
      );
      const kc = new KubeConfig();
      kc.loadFromFile(file);
      assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:32767');
      assert.equal(kc.getCurrentCluster()?.caFile, '/pki/ca.crt');
      assert.equal(kc.getCurrentUser()?.name, user);
      assert.equal(kc.getCurrentUser()?.token, 'T0K');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("probes the webhook with a queued Job that is not suspended yet: only Kueue's webhook suspends it", () => {
    const job = probeJob();
    assert.equal(job.metadata?.labels?.[QUEUE_NAME_LABEL], 'kueue-webhook-probe');
    assert.notEqual(job.spec?.suspend, true);
  });
});
