// Where the project is, the versions it pins (hack/versions.env), its build cache and the third-party
// sources beside it: what the image builds and the local cluster both need to find.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Versions {
  kubernetes: string;
  etcd: string;
  kwok: string;
  coredns: string;
  fluxCore: string;
}

/** The repository (the folder holding hack/build-control-plane.sh): searched upwards from this module. */
export function findProjectRoot(start: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, 'hack', 'build-control-plane.sh'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`cannot find hack/build-control-plane.sh in ${start} or any parent folder`);
    }
    dir = parent;
  }
}

/** Parses the KEY=VALUE lines of hack/versions.env. */
export function parseVersionsEnv(text: string): Versions {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z_]+)=(\S+)\s*$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) values.set(m[1], m[2]);
  }
  const get = (key: string): string => {
    const v = values.get(key);
    if (v === undefined) throw new Error(`hack/versions.env lacks ${key}`);
    return v;
  };
  return {
    kubernetes: get('KUBERNETES_VERSION'),
    etcd: get('ETCD_VERSION'),
    kwok: get('KWOK_VERSION'),
    coredns: get('COREDNS_VERSION'),
    fluxCore: get('FLUX_CORE_VERSION'),
  };
}

export function readVersions(root: string = findProjectRoot()): Versions {
  return parseVersionsEnv(readFileSync(path.join(root, 'hack', 'versions.env'), 'utf8'));
}

/** Same rule as hack/build-control-plane.sh: $FLUX_OPERATOR_CACHE, else $XDG_CACHE_HOME/flux-operator, else ~/.cache/flux-operator. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLUX_OPERATOR_CACHE) return env.FLUX_OPERATOR_CACHE;
  return path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'flux-operator');
}

/**
 * Third-party sources the project builds or reads (flux-core, the Go operator's examples), beside the
 * project and never in it: $FLUX_OPERATOR_DEPS, else `<project>/../shared/deps` (hack/lib.sh: deps_dir).
 */
export function depsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.FLUX_OPERATOR_DEPS ?? path.join(path.dirname(findProjectRoot()), 'shared', 'deps');
}

/** A file of the deps folder; throws a clear error naming where it looked when it is not there. */
export function depsFile(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = path.join(depsDir(env), name);
  if (!existsSync(file)) {
    throw new Error(
      `${name} is not in ${depsDir(env)}: the third-party sources live in ../shared/deps beside the project ` +
        '(or set FLUX_OPERATOR_DEPS to their folder)',
    );
  }
  return file;
}
