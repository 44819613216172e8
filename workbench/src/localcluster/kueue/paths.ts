// Where Kueue's binary, its Go module and a cluster's Kueue state live.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { cacheRoot } from '../../tooling/project.ts';

/** The Go module Kueue is built from, and whose config/ its CRDs, RBAC and webhooks are read from. */
export const KUEUE_MODULE = 'sigs.k8s.io/kueue';
export const KUEUE_VERSION = 'v0.17.0';
export const KUEUE_PACKAGE = `${KUEUE_MODULE}/cmd/kueue`;

/** Beside the control plane's binaries: `<cache>/kueue/<version>/bin/kueue`. */
export function kueueBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'kueue', KUEUE_VERSION, 'bin');
}

export function kueueBinary(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(kueueBinDir(env), 'kueue');
}

/**
 * A cluster's Kueue state (configuration, kubeconfig, certificates, pid and log) inside kwokctl's folder
 * of that cluster: the cluster's own teardown removes it, and its status counts the Kueue process among
 * the cluster's (its command line names this folder).
 */
export function kueueStateDir(clusterDir: string): string {
  return path.join(clusterDir, 'kueue');
}

/** `go` on PATH, else where the official tarball installs it. */
export function goCommand(env: NodeJS.ProcessEnv = process.env): string {
  for (const dir of [...(env.PATH ?? '').split(':'), '/usr/local/go/bin']) {
    if (dir !== '' && existsSync(path.join(dir, 'go'))) return path.join(dir, 'go');
  }
  throw new Error(`building Kueue ${KUEUE_VERSION} needs Go (go on PATH or /usr/local/go/bin/go)`);
}
