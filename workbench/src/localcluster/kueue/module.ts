// Reads Kueue's install objects from its Go module's source in the module cache (the module zip holds
// config/), at run time: nothing of Kueue is kept in the project.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../../tooling/command.ts';
import {
  customResourceDefinitions,
  parseKustomization,
  parseObjects,
  placed,
  webhookConfigurations,
  type KubeObject,
  type Placement,
  type WebhookEndpoint,
} from './manifests.ts';
import { KUEUE_MODULE, KUEUE_VERSION, goCommand } from './paths.ts';

/** The module's folder in the Go module cache, downloading it through the proxy when it is not there. */
export async function kueueModuleDir(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const out = await runCommand(
    goCommand(env),
    ['mod', 'download', '-json', `${KUEUE_MODULE}@${KUEUE_VERSION}`],
    {
      env,
    },
  );
  const dir = (JSON.parse(out) as { Dir?: string }).Dir;
  if (!dir) throw new Error(`go mod download ${KUEUE_MODULE}@${KUEUE_VERSION} named no folder:\n${out}`);
  return dir;
}

export interface KueueManifests {
  placement: Placement;
  /** The Namespace Kueue works in (its leases, its events, its ServiceAccount). */
  namespace: KubeObject;
  crds: KubeObject[];
  /** The ServiceAccount Kueue runs as, its roles and their bindings. */
  rbac: KubeObject[];
  webhooks: KubeObject[];
  /** The ServiceAccount of `rbac` that the manager's Deployment would run as. */
  serviceAccount: { name: string; namespace: string };
}

function read(dir: string, file: string): string {
  return readFileSync(path.join(dir, file), 'utf8');
}

/** What each resource file of a kustomization folder holds. */
function resourcesOf(dir: string): KubeObject[] {
  return parseKustomization(read(dir, 'kustomization.yaml')).resources.flatMap((file) =>
    parseObjects(read(dir, file)),
  );
}

/** What the patches of a kustomization folder hold, from their files and inline. */
function patchesOf(dir: string): KubeObject[] {
  return parseKustomization(read(dir, 'kustomization.yaml')).patches.flatMap((patch) =>
    patch.path !== undefined ? parseObjects(read(dir, patch.path)) : parseObjects(patch.patch ?? ''),
  );
}

/** The name prefix and namespace of `config/default`, as a release installs Kueue. */
export function readPlacement(moduleDir: string): Placement {
  const defaults = parseKustomization(read(path.join(moduleDir, 'config'), 'default/kustomization.yaml'));
  return { namePrefix: defaults.namePrefix ?? '', namespace: defaults.namespace ?? 'kueue-system' };
}

/** Kueue's CRDs, RBAC and webhook configurations from `config/` of the module at `moduleDir`. */
export function readKueueManifests(moduleDir: string, endpoint: WebhookEndpoint): KueueManifests {
  const config = path.join(moduleDir, 'config');
  const placement = readPlacement(moduleDir);
  const crd = path.join(config, 'components', 'crd');
  const webhook = path.join(config, 'components', 'webhook');
  const rbac = placed(resourcesOf(path.join(config, 'components', 'rbac')), placement);
  const account = rbac.find((o) => o.kind === 'ServiceAccount');
  if (!account) throw new Error(`${config}/components/rbac holds no ServiceAccount`);
  return {
    placement,
    namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: placement.namespace } },
    crds: customResourceDefinitions(resourcesOf(crd), patchesOf(crd), endpoint),
    rbac,
    webhooks: webhookConfigurations(resourcesOf(webhook), patchesOf(webhook), endpoint, placement),
    serviceAccount: { name: account.metadata.name, namespace: placement.namespace },
  };
}
