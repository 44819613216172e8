// Where the local control plane's binaries and per-cluster state live.
import path from 'node:path';
import { cacheRoot, findProjectRoot, type Versions } from '../tooling/project.ts';

export const BINARIES = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubectl',
  'etcd',
  'kwok',
  'kwokctl',
] as const;

export function binDir(versions: Versions, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(
    cacheRoot(env),
    'k8s',
    `${versions.kubernetes}-etcd${versions.etcd}-kwok${versions.kwok}`,
    'bin',
  );
}

/** Same rule as hack/build-real-node.sh: kubelet, kube-proxy, coredns and pause. */
export function realNodeBinDir(versions: Versions, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'k8s', `${versions.kubernetes}-node-coredns${versions.coredns}`, 'bin');
}

/**
 * The state folder of local clusters: $FLUX_OPERATOR_CLUSTER_DIR, else `.cluster` in the project root
 * (gitignored). kwokctl keeps its per-cluster work folders under `<stateDir>/kwok`.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.FLUX_OPERATOR_CLUSTER_DIR || path.join(findProjectRoot(), '.cluster');
}

export const DEFAULT_CLUSTER = 'default';

export function validateName(name: string): void {
  if (!/^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/.test(name) || name === 'kwok') {
    throw new Error(
      `invalid cluster name ${JSON.stringify(name)}: use 1-32 lower-case letters, digits and '-' (not "kwok")`,
    );
  }
}

/** `.cluster/kubeconfig` for the default cluster, `.cluster/<name>/kubeconfig` for the others. */
export function kubeconfigPath(name: string, dir: string = stateDir()): string {
  validateName(name);
  return name === DEFAULT_CLUSTER ? path.join(dir, 'kubeconfig') : path.join(dir, name, 'kubeconfig');
}

export function kwokWorkdir(dir: string = stateDir()): string {
  return path.join(dir, 'kwok');
}

/** kwokctl's name for our cluster (its kubeconfig context is `kwok-<that>`). */
export function kwokClusterName(name: string): string {
  return `flux-${name}`;
}

export function kwokClusterDir(name: string, dir: string = stateDir()): string {
  return path.join(kwokWorkdir(dir), 'clusters', kwokClusterName(name));
}
