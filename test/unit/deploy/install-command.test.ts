// The install command's failures that need no cluster: bad input, a missing kubeconfig, an API server
// that does not answer (a closed local port). The applying itself is tested against the local control
// plane in test/integration/install.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { installCommand, objectRef, scopeLine } from '../../../src/cli/install-command.ts';
import { InputError } from '../../../src/cli/input-error.ts';
import { installObjects } from '../../../src/deploy/index.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

function kubeconfigFile(server: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'flux-operator-install-')), 'kubeconfig');
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters:
  - name: nowhere
    cluster: { server: ${server}, insecure-skip-tls-verify: true }
users:
  - name: someone
    user: { token: not-a-token }
contexts:
  - name: nowhere-context
    context: { cluster: nowhere, user: someone }
current-context: nowhere-context
`,
  );
  return path;
}

describe('installCommand without a cluster', () => {
  it('rejects an invalid namespace name before connecting', async () => {
    await assert.rejects(installCommand({ namespace: 'Not_Valid', kubeconfig: '/nonexistent' }), (error) => {
      assert.ok(error instanceof InputError);
      assert.match(error.message, /--namespace "Not_Valid": not a valid namespace name/);
      return true;
    });
  });

  it('names a missing kubeconfig file', async () => {
    await assert.rejects(installCommand({ kubeconfig: '/nonexistent/kubeconfig' }), (error) => {
      assert.ok(error instanceof InputError);
      assert.equal(error.message, 'kubeconfig /nonexistent/kubeconfig: no such file');
      return true;
    });
  });

  it('names the context, server and kubeconfig when the API server does not answer', async () => {
    const server = `https://127.0.0.1:${await closedPort()}`;
    const kubeconfig = kubeconfigFile(server);
    const lines: string[] = [];
    await assert.rejects(installCommand({ kubeconfig, log: (line) => lines.push(line) }), (error) => {
      assert.ok(error instanceof InputError);
      assert.ok(
        error.message.startsWith(
          `applying namespace/flux-operator-system: cannot reach the API server of context "nowhere-context" ` +
            `(server ${server}) of kubeconfig ${kubeconfig}`,
        ),
        error.message,
      );
      assert.doesNotMatch(error.message, /\n\s+at /, 'no stack trace in the message');
      return true;
    });
    assert.deepEqual(lines, []);
  });
});

describe('objectRef', () => {
  it('names objects the way kubectl does', () => {
    assert.deepEqual(installObjects().map(objectRef), [
      'namespace/flux-operator-system',
      'customresourcedefinition.apiextensions.k8s.io/miniclusters.flux-framework.org',
      'customresourcedefinition.apiextensions.k8s.io/bursttargets.flux-framework.org',
      'validatingadmissionpolicy.admissionregistration.k8s.io/flux-operator-host-storage',
      'validatingadmissionpolicybinding.admissionregistration.k8s.io/flux-operator-host-storage',
      'clusterrole.rbac.authorization.k8s.io/flux-operator',
      'clusterrole.rbac.authorization.k8s.io/flux-operator-metrics-reader',
      'serviceaccount/flux-operator',
      'clusterrolebinding.rbac.authorization.k8s.io/flux-operator',
      'role.rbac.authorization.k8s.io/flux-operator-webhook-cert',
      'rolebinding.rbac.authorization.k8s.io/flux-operator-webhook-cert',
      'role.rbac.authorization.k8s.io/flux-operator-leader-election',
      'rolebinding.rbac.authorization.k8s.io/flux-operator-leader-election',
      'service/flux-operator-webhook',
      'deployment.apps/flux-operator',
    ]);
  });
});

describe('scopeLine', () => {
  it('says whether the install grants cluster-wide rights, and how to scope them', () => {
    assert.match(scopeLine([]), /watches every namespace.*cluster-wide.*--watch-namespace NAME/);
    assert.match(scopeLine(['a', 'b']), /watches a, b only; .* are Roles there/);
  });
});
