/**
 * Finds a RESTful MiniCluster's API for `flux-operator jobs`: the MiniCluster by name and namespace,
 * that it serves the API, its Service behind the API server's proxy (or a `--url`), and the
 * credentials from its Secret (or `--user`/`--token`). Each failure names what is wrong and what to do.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_RESTFUL_USER, PLURAL, SECRET_DATA_KEYS } from '../api/index.ts';
import { joinsAnother } from '../api/shared/restful-schema.ts';
import { toV1alpha2, type MiniCluster } from '../api/index.ts';
import { MINICLUSTER_VERSION } from '../controllers/minicluster/watched-kinds.ts';
import { apiErrorCode, isNotFound } from '../kube/api-errors.ts';
import { apiClientsFor } from '../kube/clients.ts';
import { GROUP } from '../api/index.ts';
import { dnsLabel } from '../render/index.ts';
import { InputError } from './input-error.ts';
import { RestfulClient, type ApiCredentials, type ApiLocation } from './restful-client.ts';

export interface TargetOptions {
  /** The user's kubeconfig, loaded only when needed (not for --url with --token). */
  readonly config: () => KubeConfig;
  readonly name: string;
  readonly namespace: string;
  /** Straight to this URL instead of the API server's proxy. */
  readonly url?: string;
  readonly user?: string;
  readonly token?: string;
}

/** `<name>-restful`: the Service and the Secret of a RESTful MiniCluster (see src/render/names.ts). */
export function restfulObjectName(miniCluster: string): string {
  return dnsLabel([miniCluster, 'restful']);
}

function decoded(data: Record<string, string> | undefined, key: string): string | undefined {
  const value = data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

async function readCredentials(options: TargetOptions): Promise<ApiCredentials> {
  if (options.token !== undefined) {
    return { user: options.user ?? DEFAULT_RESTFUL_USER, token: options.token };
  }
  const secret = restfulObjectName(options.name);
  const where = `Secret ${options.namespace}/${secret}`;
  try {
    const found = await apiClientsFor(options.config()).core.readNamespacedSecret({
      name: secret,
      namespace: options.namespace,
    });
    const user = decoded(found.data, SECRET_DATA_KEYS.restful.username);
    const token = decoded(found.data, SECRET_DATA_KEYS.restful.token);
    if (token === undefined || user === undefined) {
      throw new InputError([
        `${where} has no ${SECRET_DATA_KEYS.restful.token} or ${SECRET_DATA_KEYS.restful.username} key`,
      ]);
    }
    return { user: options.user ?? user, token };
  } catch (error) {
    if (isNotFound(error)) {
      throw new InputError([
        `${where} does not exist yet: the operator makes it when it reconciles MiniCluster ${options.namespace}/${options.name}; try again shortly, or give --token`,
      ]);
    }
    if (apiErrorCode(error) === 403) {
      throw new InputError([
        `cannot read ${where} with this kubeconfig (forbidden): give --user and --token`,
      ]);
    }
    throw error;
  }
}

/**
 * Checks that the MiniCluster exists and serves the API; the name of its Service `<name>-restful`.
 * Each refusal names what to do.
 */
export async function restfulServiceOf(
  options: Pick<TargetOptions, 'config' | 'name' | 'namespace'>,
): Promise<string> {
  let miniCluster: unknown;
  try {
    miniCluster = await apiClientsFor(options.config()).custom.getNamespacedCustomObject({
      group: GROUP,
      version: MINICLUSTER_VERSION,
      namespace: options.namespace,
      plural: PLURAL,
      name: options.name,
    });
  } catch (error) {
    if (isNotFound(error)) {
      throw new InputError([
        `there is no MiniCluster ${options.namespace}/${options.name}; check the name and --namespace (kubectl get miniclusters -A)`,
      ]);
    }
    throw error;
  }
  // In the current API's words, whichever version it was written in: v1alpha1's implied API is spelled out.
  const { spec } = toV1alpha2(miniCluster) as MiniCluster;
  if (spec.fluxRestful === undefined || joinsAnother(spec)) {
    throw new InputError([
      `MiniCluster ${options.namespace}/${options.name} does not serve the RESTful API (its Flux container has a command, or it is interactive without fluxRestful); create one without a command, or with spec.fluxRestful`,
    ]);
  }
  return restfulObjectName(options.name);
}

/** The API's client for a MiniCluster, after checking that it exists and serves the API. */
export async function restfulClientFor(options: TargetOptions): Promise<RestfulClient> {
  let location: ApiLocation;
  if (options.url !== undefined) {
    location = { kind: 'url', url: options.url };
  } else {
    await restfulServiceOf(options);
    location = {
      kind: 'proxy',
      config: options.config(),
      namespace: options.namespace,
      service: restfulObjectName(options.name),
    };
  }
  return new RestfulClient(location, await readCredentials(options));
}
