/**
 * Where the operator's API server is and how to authenticate to it, read from a kubeconfig or the
 * in-cluster service account without the official client (whose import alone costs ~85 MiB of RSS:
 * docs/performance.md).
 *
 * Covered: the current context's cluster (server, CA inline or from a file, insecure-skip-tls-verify,
 * tls-server-name) and user (client certificate and key inline or from files, token, token file,
 * basic auth); the in-cluster service account (token re-read as the kubelet rotates it). A user with
 * an `exec` or `auth-provider` plugin is handed to the official client, loaded only then, for its
 * Authorization header: those plugins are the client's to run.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';

// The YAML parser is loaded only to read a kubeconfig file: in a pod (the service account) it is not.
const require = createRequire(import.meta.url);

/** TLS material of the connection (node:tls option names). */
export interface TlsMaterial {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly rejectUnauthorized: boolean;
  readonly servername?: string;
}

export interface ClusterAccess {
  /** The API server's URL, without a trailing slash. */
  readonly server: string;
  readonly tls: TlsMaterial;
  /** The Authorization header of the next request, if any (a token file may have been rotated). */
  authorization(): Promise<string | undefined>;
  /** The same cluster and user as the official client's KubeConfig (loads the client: rare paths only). */
  clientConfig(): Promise<KubeConfig>;
  /** The namespace of the current context, if it names one. */
  readonly namespace?: string;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** How long a token read from a file is used before it is read again (client-go: one minute). */
const TOKEN_FILE_TTL_MS = 60_000;

type Entry = Record<string, unknown>;

function isObject(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function named(list: unknown, name: string, field: string): Entry | undefined {
  if (!Array.isArray(list)) return undefined;
  const item = list.find((entry: unknown) => isObject(entry) && entry.name === name) as Entry | undefined;
  return item && isObject(item[field]) ? item[field] : undefined;
}

function text(entry: Entry, key: string): string | undefined {
  const value = entry[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Inline base64 data, else the named file's content. */
function dataOrFile(data: string | undefined, file: string | undefined): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  return file ? readFileSync(file) : undefined;
}

/** A kubeconfig entry's inline data, else its file (relative to the kubeconfig's folder). */
function material(entry: Entry, dataKey: string, fileKey: string, base: string): Buffer | undefined {
  const file = text(entry, fileKey);
  return dataOrFile(text(entry, dataKey), file === undefined ? undefined : path.resolve(base, file));
}

/** The connection's TLS options, without the fields a kubeconfig leaves out. */
function tlsMaterial(given: {
  ca: Buffer | undefined;
  cert: Buffer | undefined;
  key: Buffer | undefined;
  skipVerify: boolean;
  servername: string | undefined;
}): TlsMaterial {
  const { ca, cert, key, servername } = given;
  return {
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    rejectUnauthorized: !given.skipVerify,
    ...(servername ? { servername } : {}),
  };
}

/** The Authorization header the official client computes for its current user (token or plugin). */
async function clientAuthorization(config: KubeConfig): Promise<string | undefined> {
  const options: { headers: Record<string, string> } = { headers: {} };
  await config.applyToHTTPSOptions(options);
  return options.headers.Authorization ?? options.headers.authorization;
}

/** A token read from a file, re-read after TOKEN_FILE_TTL_MS. */
function tokenFromFile(file: string): () => Promise<string> {
  let cached: { token: string; at: number } | undefined;
  return async () => {
    if (!cached || Date.now() - cached.at > TOKEN_FILE_TTL_MS) {
      cached = { token: readFileSync(file, 'utf8').trim(), at: Date.now() };
    }
    return cached.token;
  };
}

/** The official client's KubeConfig, loaded the way it loads itself (dynamic import: rare paths). */
function lazyClientConfig(load: (config: KubeConfig) => void): () => Promise<KubeConfig> {
  let config: Promise<KubeConfig> | undefined;
  return () =>
    (config ??= import('@kubernetes/client-node').then(({ KubeConfig: Config }) => {
      const loaded = new Config();
      load(loaded);
      return loaded;
    }));
}

/** Reads a kubeconfig file's current context. Throws naming the file and the missing entry. */
export function accessFromKubeconfig(file: string): ClusterAccess {
  const { parse } = require('yaml') as typeof import('yaml');
  const document: unknown = parse(readFileSync(file, 'utf8'));
  if (!isObject(document)) throw new Error(`kubeconfig ${file} is not a mapping`);
  const contextName = text(document, 'current-context');
  if (contextName === undefined) throw new Error(`kubeconfig ${file} has no current cluster`);
  const context = named(document.contexts, contextName, 'context');
  if (!context) throw new Error(`kubeconfig ${file}: current-context ${contextName} is not in contexts`);
  const clusterName = text(context, 'cluster');
  const cluster = clusterName === undefined ? undefined : named(document.clusters, clusterName, 'cluster');
  const server = cluster && text(cluster, 'server');
  if (!cluster || server === undefined) throw new Error(`kubeconfig ${file} has no current cluster`);
  const userName = text(context, 'user');
  const user = (userName === undefined ? undefined : named(document.users, userName, 'user')) ?? {};
  const base = path.dirname(path.resolve(file));
  const clientConfig = lazyClientConfig((config) => config.loadFromFile(file));

  let authorization: () => Promise<string | undefined>;
  if (isObject(user.exec) || isObject(user['auth-provider'])) {
    authorization = async () => clientAuthorization(await clientConfig());
  } else {
    const token = text(user, 'token');
    const tokenFile = text(user, 'tokenFile') ?? text(user, 'token-file');
    const username = text(user, 'username');
    const password = text(user, 'password');
    const readToken = tokenFile === undefined ? undefined : tokenFromFile(path.resolve(base, tokenFile));
    authorization = async () => {
      if (token !== undefined) return `Bearer ${token}`;
      if (readToken) return `Bearer ${await readToken()}`;
      if (username !== undefined && password !== undefined) {
        return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
      }
      return undefined;
    };
  }
  const namespace = text(context, 'namespace');
  return {
    server: server.replace(/\/+$/, ''),
    tls: tlsMaterial({
      ca: material(cluster, 'certificate-authority-data', 'certificate-authority', base),
      cert: material(user, 'client-certificate-data', 'client-certificate', base),
      key: material(user, 'client-key-data', 'client-key', base),
      skipVerify: cluster['insecure-skip-tls-verify'] === true,
      servername: text(cluster, 'tls-server-name'),
    }),
    authorization,
    clientConfig,
    ...(namespace ? { namespace } : {}),
  };
}

/** The pod's service account: KUBERNETES_SERVICE_HOST/PORT, its token (rotated) and CA. */
export function accessInCluster(
  env: NodeJS.ProcessEnv = process.env,
  dir = SERVICE_ACCOUNT_DIR,
): ClusterAccess {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('not in a cluster: KUBERNETES_SERVICE_HOST/PORT are not set');
  const readToken = tokenFromFile(path.join(dir, 'token'));
  let namespace: string | undefined;
  try {
    namespace = readFileSync(path.join(dir, 'namespace'), 'utf8').trim();
  } catch {
    namespace = undefined;
  }
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    tls: { ca: readFileSync(path.join(dir, 'ca.crt')), rejectUnauthorized: true },
    authorization: async () => `Bearer ${await readToken()}`,
    clientConfig: lazyClientConfig((config) => config.loadFromCluster()),
    ...(namespace ? { namespace } : {}),
  };
}

/**
 * The given kubeconfig, else the official client's order: the first file of $KUBECONFIG,
 * ~/.kube/config, then the in-cluster service account. Throws with a message naming where it looked.
 */
export function loadClusterAccess(file?: string, env: NodeJS.ProcessEnv = process.env): ClusterAccess {
  if (file !== undefined) return accessFromKubeconfig(file);
  const fromEnv = env.KUBECONFIG?.split(path.delimiter).find((entry) => entry !== '');
  if (fromEnv) return accessFromKubeconfig(fromEnv);
  const home = path.join(env.HOME ?? homedir(), '.kube', 'config');
  try {
    readFileSync(home);
  } catch {
    if (env.KUBERNETES_SERVICE_HOST) return accessInCluster(env);
    throw new Error('no cluster configured: set --kubeconfig, $KUBECONFIG or ~/.kube/config');
  }
  return accessFromKubeconfig(home);
}

/**
 * The access of an official client's KubeConfig that is already loaded (a burst target's): its
 * TLS material, and its Authorization header as the client computes it (token, or a cloud
 * provider's credentials).
 */
export function accessFromClientConfig(config: KubeConfig): ClusterAccess {
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const user = config.getCurrentUser();
  const namespace = config.getContextObject(config.getCurrentContext())?.namespace;
  return {
    server: cluster.server.replace(/\/+$/, ''),
    tls: tlsMaterial({
      ca: dataOrFile(cluster.caData, cluster.caFile),
      cert: dataOrFile(user?.certData, user?.certFile),
      key: dataOrFile(user?.keyData, user?.keyFile),
      skipVerify: cluster.skipTLSVerify === true,
      servername: cluster.tlsServerName,
    }),
    authorization: () => clientAuthorization(config),
    clientConfig: async () => config,
    ...(namespace ? { namespace } : {}),
  };
}
