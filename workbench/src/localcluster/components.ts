// The control-plane components of a local cluster as kwokctl configured them (binary, arguments, work
// folder), so that one that died can be started again exactly as kwokctl started it, without
// recreating the cluster and losing its objects (etcd keeps them on disk).
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { startDaemon } from './real-node/daemons.ts';

export interface ComponentSpec {
  readonly name: string;
  readonly binary: string;
  readonly args: readonly string[];
  readonly workDir: string;
  /** The TCP ports it listens on. */
  readonly ports: readonly number[];
}

export interface KwokctlConfigDoc {
  options?: Record<string, unknown>;
  components?: {
    name?: string;
    binary?: string;
    args?: string[];
    workDir?: string;
    ports?: { port?: number }[];
  }[];
}

export function readKwokctlConfig(clusterDir: string): KwokctlConfigDoc | undefined {
  const file = path.join(clusterDir, 'kwok.yaml');
  if (!existsSync(file)) return undefined;
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const value = doc.toJS() as { kind?: string } | null;
    if (value?.kind === 'KwokctlConfiguration') return value as KwokctlConfigDoc;
  }
  return undefined;
}

/** The components in kwokctl's start order (etcd first, the API server before its clients). */
export function componentSpecs(config: KwokctlConfigDoc, clusterDir: string): ComponentSpec[] {
  return (config.components ?? []).flatMap((c) =>
    c.name && c.binary
      ? [
          {
            name: c.name,
            binary: c.binary,
            args: c.args ?? [],
            workDir: c.workDir ?? clusterDir,
            ports: (c.ports ?? []).flatMap((p) => (typeof p.port === 'number' ? [p.port] : [])),
          },
        ]
      : [],
  );
}

/**
 * Starts a component detached, as kwokctl does: output appended to logs/<name>.log, pid in
 * pids/<name>.pid. Returns its pid.
 */
export function startComponent(clusterDir: string, component: ComponentSpec): number {
  return startDaemon(
    { name: component.name, binary: component.binary, args: [...component.args], cwd: component.workDir },
    { pidDir: path.join(clusterDir, 'pids'), logDir: path.join(clusterDir, 'logs') },
  );
}

/**
 * Whether a component's secure port answers /healthz with "ok" (kube-controller-manager and
 * kube-scheduler serve it to anyone: --authorization-always-allow-paths; their certificate is
 * self-signed, and the port is on loopback).
 */
export function healthy(port: number, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, timeout: timeoutMs },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(res.statusCode === 200 && body.trim() === 'ok'));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
