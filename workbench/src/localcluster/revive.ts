// Starting again a client of the API server that exited while a local cluster came up.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { componentSpecs, readKwokctlConfig, startComponent } from './components.ts';
import type { Progress } from '../tooling/hack-script.ts';

/** At most this many starts again of one component while a cluster comes up. */
export const MAX_REVIVALS = 3;
/** Checked at most this often (the waits that call it poll every 250 ms). */
const CHECK_INTERVAL_MS = 1_000;
/** The components that are no client of the API server: their death is the cluster's, not a start-up race. */
const SERVERS = new Set(['etcd', 'kube-apiserver']);

/** The last error line (klog `E` or `F`) of a component's log, without its header, shortened; '' when none. */
export function lastErrorLine(clusterDir: string, component: string): string {
  let text: string;
  try {
    text = readFileSync(path.join(clusterDir, 'logs', `${component}.log`), 'utf8');
  } catch {
    return '';
  }
  const line = text
    .split('\n')
    .reverse()
    .find((l) => /^[EF]\d{4} /.test(l));
  if (line === undefined) return '';
  const message = line.replace(/^[EF]\d{4} [\d:.]+\s+\d+ /, '');
  return message.length > 300 ? `${message.slice(0, 300)}...` : message;
}

export interface ReviverOptions {
  /** The cluster's kwokctl folder (kwok.yaml, logs/, pids/). */
  readonly clusterDir: string;
  /** The cluster's name, for the progress line. */
  readonly name: string;
  readonly progress: Progress;
  /** The live processes of the cluster, with their command lines. */
  readonly processes: () => readonly { readonly command: string }[];
}

/**
 * A check to call while waiting for a cluster to come up: it starts again, as kwokctl started it, a
 * client of the API server (kube-controller-manager, kube-scheduler, kwok) that is not running, and
 * says so with the last error it logged. kube-controller-manager exits when the API server is not
 * healthy within 10 s of its own start, which a fresh API server on a loaded machine may not be (its
 * etcd slow to answer: "failed to wait for apiserver being healthy"); nothing else would start it
 * again, and without it no namespace ever gets its default ServiceAccount, so no pod can be made.
 */
export function clientReviver(options: ReviverOptions): () => void {
  const revivals = new Map<string, number>();
  let checkedAt = Number.NEGATIVE_INFINITY;
  return () => {
    if (Date.now() - checkedAt < CHECK_INTERVAL_MS) return;
    checkedAt = Date.now();
    const config = readKwokctlConfig(options.clusterDir);
    if (!config) return;
    const running = options.processes();
    for (const component of componentSpecs(config, options.clusterDir)) {
      if (SERVERS.has(component.name)) continue;
      if (running.some((p) => p.command.startsWith(component.binary))) continue;
      const times = revivals.get(component.name) ?? 0;
      if (times >= MAX_REVIVALS) continue;
      revivals.set(component.name, times + 1);
      const why = lastErrorLine(options.clusterDir, component.name);
      options.progress(
        `cluster ${options.name}: ${component.name} exited while the cluster came up` +
          `${why ? ` (${why})` : ''}; starting it again`,
      );
      startComponent(options.clusterDir, component);
    }
  };
}
