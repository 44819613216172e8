/**
 * The Secrets a pass needs: those the user names must be there (user-secrets), and the keys the
 * operator generates are read from their Secrets or made anew (keys).
 */
import type { V1Secret } from '@kubernetes/client-node';
import { SECRET_DATA_KEYS } from '../../api/index.ts';
import { servesRestful } from '../../render/index.ts';
import { readSecret } from '../../kube/secrets.ts';
import { CONTINUE, stop, type StepResult } from '../../runtime/steps.ts';
import { resolveKeys } from './keys.ts';
import { validOf, type Pass } from './pass.ts';

/** How soon to look again at a MiniCluster waiting on something we do not watch (a user's Secret). */
const WAITING_REQUEUE_MS = 10_000;

/** curveCertSecret / mungeSecret must exist before pods can mount them. */
export async function requireUserSecrets(pass: Pass): Promise<StepResult> {
  const { names } = validOf(pass);
  const namespace = pass.namespace;
  const wanted: { name: string; field: string; dataKey: string }[] = [];
  if (!names.generatesCurveCertSecret) {
    wanted.push({
      name: names.curveCertSecret,
      field: 'spec.flux.curveCertSecret',
      dataKey: SECRET_DATA_KEYS.curveCert,
    });
  }
  if (!names.generatesMungeKeySecret) {
    wanted.push({
      name: names.mungeKeySecret,
      field: 'spec.flux.mungeSecret',
      dataKey: SECRET_DATA_KEYS.mungeKey,
    });
  }
  const source = { cache: pass.deps.cache.secrets, core: pass.deps.clients.core };
  for (const secret of wanted) {
    const found = await readSecret(source, secret.name, namespace);
    if (!found) {
      return stop(
        {
          reason: 'SecretMissing',
          message: `${secret.field}: Secret ${namespace}/${secret.name} does not exist; create it with the key ${secret.dataKey}`,
        },
        WAITING_REQUEUE_MS,
      );
    }
    if (found.data?.[secret.dataKey] === undefined) {
      return stop(
        {
          reason: 'SecretMissing',
          message: `${secret.field}: Secret ${namespace}/${secret.name} has no key ${secret.dataKey}; add it`,
        },
        WAITING_REQUEUE_MS,
      );
    }
  }
  return CONTINUE;
}

/**
 * The keys, from the generated Secrets the cache holds; new ones for those it does not. The cache
 * may lag (a Secret made a moment ago, or by another operator instance): so a Secret holding new
 * keys is created, never applied (`fresh`), and a create that finds one there already starts the
 * pass again with its keys (createSecret in apply-steps.ts). Keys are never stored twice for one
 * MiniCluster.
 */
export function readOrMakeKeys(pass: Pass): StepResult {
  const { miniCluster, names } = validOf(pass);
  const { objectKey, namespace } = pass;
  const restful = servesRestful(miniCluster);
  const fresh = new Set<string>();
  const stored = (wanted: boolean, name: string): V1Secret | undefined => {
    if (!wanted) return undefined;
    const cached = pass.deps.cache.secrets.get(name, namespace);
    if (cached) pass.memory.appeared.get(objectKey)?.delete(name);
    const found = cached ?? pass.memory.appeared.get(objectKey)?.get(name);
    if (!found) fresh.add(name);
    return found;
  };
  const existing = {
    curveCert: stored(names.generatesCurveCertSecret, names.curveCertSecret),
    mungeKey: stored(names.generatesMungeKeySecret, names.mungeKeySecret),
    restful: stored(restful, names.restful),
  };
  const { keys, generated } = resolveKeys(
    miniCluster.metadata.name,
    names,
    existing,
    pass.deps.now(),
    restful,
  );
  if (generated) pass.log.info({}, 'generated keys');
  pass.keys = keys;
  pass.fresh = fresh;
  return CONTINUE;
}
