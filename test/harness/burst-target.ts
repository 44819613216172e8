// Helpers for tests that burst to a second local control plane: its kubeconfig inlined into a
// Secret, BurstTargets, and the CRDs on any cluster.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import {
  BURST_TARGET_CRD_NAME,
  BURST_TARGET_PLURAL,
  GROUP,
  PLURAL,
  VERSION_V1ALPHA1,
  burstTargetCrd,
  miniClusterCrd,
  type BurstTargetStatus,
} from '../../src/api/index.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { applyCrdKeepingClientConfig } from '../../src/kube/conversion-client-config.ts';
import { ensureConversionWebhook } from './conversion-webhook.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { waitFor } from './cluster.ts';

const MANAGER = 'flux-operator-tests';

export async function installBurstTargetCrd(clients: ApiClients): Promise<void> {
  await serverSideApply(clients.objects, burstTargetCrd() as never, MANAGER);
  await waitFor(
    async () => {
      const crd = (await clients.objects.read({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: BURST_TARGET_CRD_NAME },
      })) as { status?: { conditions?: { type: string; status: string }[] } };
      if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return false;
      await clients.custom.listClusterCustomObject({
        group: GROUP,
        version: VERSION_V1ALPHA1,
        plural: BURST_TARGET_PLURAL,
      });
      return true;
    },
    { what: 'the BurstTarget CRD to be established' },
  );
}

/**
 * The MiniCluster CRD on the cluster of `kubeconfig`, served: its conversions go to that cluster's
 * shared test webhook (started if none runs), so v1alpha1 requests work whatever test runs.
 */
export async function installMiniClusterCrd(clients: ApiClients, kubeconfig: string): Promise<void> {
  const crd = miniClusterCrd(await ensureConversionWebhook(kubeconfig));
  await applyCrdKeepingClientConfig(clients.objects, crd, (applied) =>
    serverSideApply(clients.objects, applied as never, MANAGER),
  );
  await waitFor(
    async () => {
      await clients.custom.listClusterCustomObject({
        group: GROUP,
        version: VERSION_V1ALPHA1,
        plural: PLURAL,
      });
      return true;
    },
    { what: 'the MiniCluster CRD served' },
  );
}

/** The second cluster's kubeconfig with everything inline (as a Secret must hold it), and a user. */
export function inlineKubeconfig(
  file: string,
  user: Record<string, string> | 'files',
): { text: string; server: string } {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  const current = kc.getCurrentCluster();
  const currentUser = kc.getCurrentUser();
  assert.ok(current?.caFile && currentUser?.certFile && currentUser.keyFile, 'kwokctl writes file paths');
  const base64 = (path: string) => readFileSync(path).toString('base64');
  const credentials =
    user === 'files'
      ? {
          'client-certificate-data': base64(currentUser.certFile),
          'client-key-data': base64(currentUser.keyFile),
        }
      : user;
  const text = stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'second',
    clusters: [
      {
        name: 'second',
        cluster: { server: current.server, 'certificate-authority-data': base64(current.caFile) },
      },
    ],
    contexts: [{ name: 'second', context: { cluster: 'second', user: 'burst' } }],
    users: [{ name: 'burst', user: credentials }],
  });
  return { text, server: current.server };
}

export async function createSecret(
  clients: ApiClients,
  namespace: string,
  name: string,
  text: string,
): Promise<void> {
  await clients.core.createNamespacedSecret({
    namespace,
    body: { metadata: { name, namespace }, stringData: { kubeconfig: text } },
  });
}

/** Creates a BurstTarget with this spec (as given: the API server validates it). */
export async function createBurstTarget(
  clients: ApiClients,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await clients.custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION_V1ALPHA1,
    namespace,
    plural: BURST_TARGET_PLURAL,
    body: {
      apiVersion: `${GROUP}/${VERSION_V1ALPHA1}`,
      kind: 'BurstTarget',
      metadata: { name, namespace },
      spec,
    },
  });
}

/** A kubeconfig BurstTarget reading the kubeconfig in Secret `secretName`. */
export async function createTarget(
  clients: ApiClients,
  namespace: string,
  name: string,
  secretName: string,
): Promise<void> {
  await createBurstTarget(clients, namespace, name, { provider: 'kubeconfig', kubeconfig: { secretName } });
}

/** A BurstTarget as the API server has it. */
export async function readBurstTarget(
  clients: ApiClients,
  namespace: string,
  name: string,
): Promise<{ metadata: { finalizers?: string[] }; status?: BurstTargetStatus }> {
  return (await clients.custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION_V1ALPHA1,
    namespace,
    plural: BURST_TARGET_PLURAL,
    name,
  })) as { metadata: { finalizers?: string[] }; status?: BurstTargetStatus };
}
