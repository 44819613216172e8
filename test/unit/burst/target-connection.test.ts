// connectTarget up to the network: Secrets are given as objects (readSecret is a parameter), and the
// unreachable cases use real sockets on loopback.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { BurstTarget } from '../../../src/api/index.ts';
import { connectTarget, type ReadSecret } from '../../../src/burst/target-connection.ts';

function target(spec: Record<string, unknown>): BurstTarget {
  return {
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'BurstTarget',
    metadata: { name: 'remote', namespace: 'team-a' },
    spec: spec as BurstTarget['spec'],
  };
}

const kubeconfigTarget = target({ provider: 'kubeconfig', kubeconfig: { secretName: 'remote-kc' } });

function kubeconfigText(server: string): string {
  return stringify({
    'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    users: [{ name: 'u', user: { token: 'sekrit' } }],
  });
}

function secrets(data: Record<string, string> | undefined): ReadSecret {
  return (namespace, name) => {
    assert.equal(`${namespace}/${name}`, 'team-a/remote-kc');
    if (data === undefined) return Promise.resolve(undefined);
    const encoded = Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    );
    return Promise.resolve({ data: encoded } as V1Secret);
  };
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return address.port;
}

describe('connectTarget', () => {
  it('SecretMissing names the Secret and how to create it', async () => {
    const result = await connectTarget({ target: kubeconfigTarget, readSecret: secrets(undefined) });
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.reason, 'SecretMissing');
    assert.match(
      result.message,
      /^Secret team-a\/remote-kc \(spec\.kubeconfig\.secretName\) does not exist; create it .*--from-file=kubeconfig=/,
    );
  });

  it('KeyMissing lists the keys the Secret has', async () => {
    const result = await connectTarget({
      target: kubeconfigTarget,
      readSecret: secrets({ config: 'x', other: 'y' }),
    });
    assert.ok(!result.ok);
    assert.equal(result.reason, 'KeyMissing');
    assert.match(result.message, /has no key kubeconfig \(spec\.kubeconfig\.key\); it has config, other;/);
  });

  it('InvalidKubeconfig for an exec plugin, without running it', async () => {
    const text = stringify({
      'current-context': 'c',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      users: [{ name: 'u', user: { exec: { command: '/bin/sh', args: ['-c', 'exit 1'] } } }],
    });
    const result = await connectTarget({
      target: kubeconfigTarget,
      readSecret: secrets({ kubeconfig: text }),
    });
    assert.ok(!result.ok);
    assert.equal(result.reason, 'InvalidKubeconfig');
    assert.match(
      result.message,
      /^Secret team-a\/remote-kc key kubeconfig: users\[0\] \("u"\) uses an exec plugin/,
    );
  });

  it('UnsupportedProvider for a cloud provider without a connector', async () => {
    const gke = {
      project: 'my-project-1',
      location: 'us-central1',
      clusterName: 'b',
      machineType: 'e2-standard-8',
    };
    const result = await connectTarget({
      target: target({ provider: 'gke', gke }),
      readSecret: secrets(undefined),
    });
    assert.ok(!result.ok);
    assert.equal(result.reason, 'UnsupportedProvider');
    assert.match(result.message, /provider gke is not available/);
  });

  it('Unreachable when nothing listens', async () => {
    const server = createServer();
    const port = await listening(server);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const result = await connectTarget({
      target: kubeconfigTarget,
      readSecret: secrets({ kubeconfig: kubeconfigText(`https://127.0.0.1:${port}`) }),
    });
    assert.ok(!result.ok);
    assert.equal(result.reason, 'Unreachable');
    assert.match(
      result.message,
      new RegExp(`^cannot reach https://127\\.0\\.0\\.1:${port}: connection refused`),
    );
    assert.ok(!result.message.includes('sekrit'));
  });

  it('Unreachable after the timeout when the server never answers', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const server = createServer((socket) => sockets.add(socket));
    const port = await listening(server);
    try {
      const started = Date.now();
      const result = await connectTarget({
        target: kubeconfigTarget,
        readSecret: secrets({ kubeconfig: kubeconfigText(`https://127.0.0.1:${port}`) }),
        timeoutMs: 300,
      });
      assert.ok(!result.ok);
      assert.equal(result.reason, 'Unreachable');
      assert.match(result.message, /^no answer from https:\/\/127\.0\.0\.1:\d+ within 0\.3 s/);
      assert.ok(Date.now() - started < 5_000, 'the timeout cuts the request short');
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});
