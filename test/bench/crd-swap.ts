// Both operators' CRDs are named miniclusters.flux-framework.org (ours serves v1alpha1, the Go
// operator's v1alpha2 only): one is removed before the other is installed. A served version that is in
// status.storedVersions cannot be dropped by an update, hence delete and create.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { CRD_NAME, GROUP, PLURAL, VERSION_V1ALPHA1 } from '../../src/api/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { isNotFound } from '../../src/kube/api-errors.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import type { ApiClients, ApiextensionsApi } from '../../src/kube/api-clients.ts';

const GO_VERSION = 'v1alpha2';
const BENCH_FIELD_MANAGER = 'flux-operator-bench';

async function servedVersions(api: ApiextensionsApi): Promise<string[] | undefined> {
  try {
    const crd = await api.readCustomResourceDefinition({ name: CRD_NAME });
    return crd.spec.versions.filter((v) => v.served).map((v) => v.name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function deleteCrd(api: ApiextensionsApi, progress: (line: string) => void): Promise<void> {
  progress(`removing CustomResourceDefinition ${CRD_NAME}`);
  await api.deleteCustomResourceDefinition({ name: CRD_NAME });
  const deadline = Date.now() + 120_000;
  while ((await servedVersions(api)) !== undefined) {
    if (Date.now() > deadline)
      throw new Error(`CustomResourceDefinition ${CRD_NAME} still there after 120 s`);
    await sleep(250);
  }
}

/** Until a list of the version answers (discovery and the storage of the new CRD are ready). */
async function waitServed(clients: ApiClients, version: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await clients.custom.listClusterCustomObject({ group: GROUP, version, plural: PLURAL, limit: 1 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(250);
    }
  }
}

export async function useOurCrd(
  kubeconfig: string,
  clients: ApiClients,
  progress: (line: string) => void,
): Promise<void> {
  const api = clients.apiextensions;
  const served = await servedVersions(api);
  if (served !== undefined && !served.includes(VERSION_V1ALPHA1)) await deleteCrd(api, progress);
  await installCommand({ kubeconfig, log: () => undefined });
  await waitServed(clients, VERSION_V1ALPHA1);
}

export async function useGoCrd(
  clients: ApiClients,
  crdFile: string,
  progress: (line: string) => void,
): Promise<void> {
  const api = clients.apiextensions;
  const served = await servedVersions(api);
  if (served !== undefined && served.join() !== GO_VERSION) await deleteCrd(api, progress);
  progress(`installing the Go operator's CustomResourceDefinition ${CRD_NAME} (${GO_VERSION})`);
  const crd = parse(readFileSync(crdFile, 'utf8')) as V1CustomResourceDefinition;
  // As JSON, not through the client's models, which drop `default` and the x-kubernetes-* keys (the
  // Go operator relies on the schema's defaults, e.g. deadlineSeconds, else its Jobs fail at once).
  await serverSideApply(clients.objects, crd, BENCH_FIELD_MANAGER);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const current = await api.readCustomResourceDefinition({ name: CRD_NAME });
    if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
    if (Date.now() > deadline) throw new Error(`the Go operator's CRD is not Established after 60 s`);
    await sleep(250);
  }
  await waitServed(clients, GO_VERSION);
}
