// Kueue's manager as a host process beside the control plane's, started detached (it outlives the command
// that brought the cluster up) in a mount namespace of its own (run-kueue.sh says why).
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { findProjectRoot } from '../../tooling/project.ts';
import { daemonPid, logFile, startDaemon, stopDaemon, type DaemonDirs } from '../real-node/daemons.ts';
import type { KueueFiles } from './config.ts';

const NAME = 'kueue';
/** Where Kueue v0.17.0's manager reads its metrics certificate (cmd/kueue/main.go), on every host. */
export const METRICS_CERT_MOUNT = '/etc/kueue/metrics/certs';

function dirs(files: KueueFiles): DaemonDirs {
  return { pidDir: files.pidDir, logDir: files.logDir };
}

/** Found from the project root, so that it is found from dist/ as well as from src/. */
function runScript(): string {
  return path.join(findProjectRoot(), 'workbench', 'src', 'localcluster', 'kueue', 'run-kueue.sh');
}

function onPath(program: string, env: NodeJS.ProcessEnv): string {
  for (const dir of [...(env.PATH ?? '').split(':'), '/usr/bin', '/bin']) {
    if (dir !== '' && existsSync(path.join(dir, program))) return path.join(dir, program);
  }
  throw new Error(`Kueue runs with ${program} (util-linux), which is not on PATH`);
}

/** Why Kueue cannot run on this machine, or undefined when it can. */
export function kueueUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `Kueue runs here in a mount namespace, which needs Linux`;
  if (process.getuid?.() !== 0) {
    return `Kueue needs root here: its metrics certificate goes at ${METRICS_CERT_MOUNT} in a mount namespace of its own`;
  }
  return undefined;
}

export function kueuePid(files: KueueFiles, binary: string): number | undefined {
  return daemonPid(dirs(files), NAME, binary);
}

export function kueueLog(files: KueueFiles): string {
  return logFile(dirs(files), NAME);
}

export function startKueue(files: KueueFiles, binary: string, env: NodeJS.ProcessEnv): number {
  // The folder the namespace mounts over; empty on the host.
  mkdirSync(METRICS_CERT_MOUNT, { recursive: true });
  return startDaemon(
    {
      name: NAME,
      binary: onPath('unshare', env),
      args: [
        '--mount',
        '--propagation',
        'private',
        onPath('bash', env),
        runScript(),
        files.certDir,
        binary,
        `--config=${files.configFile}`,
        `--kubeconfig=${files.kubeconfig}`,
      ],
      env,
    },
    dirs(files),
  );
}

/** Live processes running `binary` (the Kueue of every cluster of this machine). */
export function kueueProcesses(binary: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] === binary;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Stops the cluster's Kueue (TERM, then KILL after 10 s) and, once no Kueue of this machine runs, removes
 * the empty folders made for the mount.
 */
export async function stopKueue(files: KueueFiles, binary: string): Promise<void> {
  await stopDaemon(dirs(files), NAME, binary);
  if (kueueProcesses(binary).length > 0) return;
  for (let dir = METRICS_CERT_MOUNT; dir !== path.dirname(dir) && dir !== '/etc'; dir = path.dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return; // not empty, or not there
    }
  }
}
