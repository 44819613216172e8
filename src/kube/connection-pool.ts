/**
 * One connection pool per API server and TLS identity, shared by every request of a KubeConfig.
 *
 * The official client builds a new undici Agent for every request (its `createDispatcher` is not
 * cached, unlike `createAgent` for https.Agent). Each Agent opens its own connection, so every
 * request paid a TCP connect, a TLS handshake and a fresh SecureContext (parsing the CA, the
 * client certificate and key): most of the operator's CPU time went there (docs/performance.md).
 * Reusing one keep-alive Agent makes a request cost one round trip on an open connection.
 */
import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';

/** The structural part of an undici Dispatcher that the pool needs. */
interface Closable {
  close(): Promise<void>;
}

/** The TLS material the client passes when it builds a dispatcher (a subset of https.AgentOptions). */
type TlsOptions = Record<string, unknown>;

interface Cluster {
  readonly name?: string;
  readonly server?: string;
}

/** The client's private factory the pool wraps; its name is checked by a unit test. */
interface DispatcherFactory {
  createDispatcher(cluster: Cluster | null, options: TlsOptions): Closable | undefined;
}

const POOLED = Symbol('flux-operator.connection-pool');

/**
 * A key that changes when anything that shapes the connection does: the server and every TLS
 * option (certificates read from files can be rotated, exec plugins can return new ones).
 */
function connectionKey(cluster: Cluster | null, options: TlsOptions): string {
  const hash = createHash('sha256');
  hash.update(`${cluster?.name ?? ''}\n${cluster?.server ?? ''}\n`);
  for (const name of Object.keys(options).sort()) {
    const value = options[name];
    if (value === undefined) continue;
    hash.update(`${name}=`);
    hash.update(Buffer.isBuffer(value) || typeof value === 'string' ? value : JSON.stringify(value));
    hash.update('\n');
  }
  return hash.digest('hex');
}

/**
 * Makes every request made through `config` (API clients, watches) share one dispatcher per
 * connection key. A changed key (rotated certificate) replaces the dispatcher: the old one closes
 * once its requests are done. Idempotent; returns the same config.
 */
export function poolConnections(config: KubeConfig): KubeConfig {
  const target = config as unknown as DispatcherFactory & { [POOLED]?: true };
  if (target[POOLED]) return config;
  const build = target.createDispatcher;
  if (typeof build !== 'function') {
    throw new Error(
      '@kubernetes/client-node no longer has KubeConfig.createDispatcher: review connection-pool.ts',
    );
  }
  let current: { key: string; dispatcher: Closable | undefined } | undefined;
  target.createDispatcher = (cluster, options) => {
    const key = connectionKey(cluster, options);
    if (current?.key === key) return current.dispatcher;
    const previous = current?.dispatcher;
    current = { key, dispatcher: build.call(config, cluster, options) };
    // close() lets requests in flight (watches too) finish; a rotation is rare enough to not wait.
    void previous?.close().catch(() => undefined);
    return current.dispatcher;
  };
  target[POOLED] = true;
  return config;
}
