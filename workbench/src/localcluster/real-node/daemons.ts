/**
 * The real node's long-running processes (containerd, kubelet, kube-proxy, CoreDNS): started detached
 * so they outlive the command that brought the node up, each with a log file and a pid file, and
 * stopped with TERM then KILL (the kubelet may ignore a first TERM).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { childrenOf, isAlive, terminate } from '../procfs.ts';

export interface DaemonSpec {
  name: string;
  binary: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Working folder; this process's when absent. */
  cwd?: string;
}

export interface DaemonDirs {
  pidDir: string;
  logDir: string;
}

function pidFile(dirs: DaemonDirs, name: string): string {
  return path.join(dirs.pidDir, `${name}.pid`);
}

export function logFile(dirs: DaemonDirs, name: string): string {
  return path.join(dirs.logDir, `${name}.log`);
}

/** The pid of a running daemon: its pid file names a live process running its binary. */
export function daemonPid(dirs: DaemonDirs, name: string, binary: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile(dirs, name), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!(pid > 0) || !isAlive(pid)) return undefined;
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return argv0 === binary ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function startDaemon(spec: DaemonSpec, dirs: DaemonDirs): number {
  mkdirSync(dirs.pidDir, { recursive: true });
  mkdirSync(dirs.logDir, { recursive: true });
  const log = openSync(logFile(dirs, spec.name), 'a');
  try {
    const child = spawn(spec.binary, spec.args, {
      detached: true,
      stdio: ['ignore', log, log],
      env: spec.env ?? process.env,
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    });
    if (child.pid === undefined) throw new Error(`could not start ${spec.name} (${spec.binary})`);
    child.unref();
    // The bare number, as kwokctl writes and reads its components' pid files (strconv.Atoi, no trim).
    writeFileSync(pidFile(dirs, spec.name), String(child.pid));
    return child.pid;
  } finally {
    closeSync(log);
  }
}

export async function stopDaemon(dirs: DaemonDirs, name: string, binary: string, graceMs?: number) {
  const pid = daemonPid(dirs, name, binary);
  // With its children: a forking daemon's connection handlers outlive their parent otherwise.
  if (pid !== undefined) await terminate([pid, ...childrenOf(pid)], graceMs);
  rmSync(pidFile(dirs, name), { force: true });
}
