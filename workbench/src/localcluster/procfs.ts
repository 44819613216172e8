// Linux /proc helpers: whether a process lives (and waiting until it does not), its resident memory,
// and the TCP ports it listens on.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (exited, not yet reaped by its parent) counts as gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Resident set size in bytes (VmRSS), or 0 when the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface ListeningSocket {
  address: string;
  port: number;
  inode: string;
}

function decodeAddress(hex: string): string {
  if (hex.length === 8) {
    // IPv4, little-endian on x86/arm.
    const bytes = [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16)).reverse();
    return bytes.join('.');
  }
  // IPv6 as four little-endian 32-bit words.
  const words: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    const le = [6, 4, 2, 0].map((i) => word.slice(i, i + 2)).join('');
    words.push(le.slice(0, 4), le.slice(4, 8));
  }
  const full = words.map((x) => x.replace(/^0{1,3}/, '').toLowerCase()).join(':');
  if (full === '0:0:0:0:0:0:0:0') return '::';
  if (full === '0:0:0:0:0:0:0:1') return '::1';
  const v4 = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(full);
  if (v4?.[1] && v4[2]) {
    const a = parseInt(v4[1], 16);
    const b = parseInt(v4[2], 16);
    return `::ffff:${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  return full;
}

/** All TCP sockets in LISTEN state on this machine (from /proc/net/tcp and tcp6). */
export function listeningSockets(): ListeningSocket[] {
  const out: ListeningSocket[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue;
      const [addr, port] = (f[1] ?? '').split(':');
      if (!addr || !port) continue;
      out.push({ address: decodeAddress(addr), port: parseInt(port, 16), inode: f[9] ?? '' });
    }
  }
  return out;
}

/** Socket inodes held open by a process. */
export function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** The TCP sockets the given processes listen on. */
export function listeningSocketsOf(pids: number[]): ListeningSocket[] {
  const inodes = new Set<string>();
  for (const pid of pids) for (const i of socketInodes(pid)) inodes.add(i);
  return listeningSockets().filter((s) => inodes.has(s.inode));
}

/** The live processes whose parent is `pid` (a forking server's connection handlers, say). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) is parenthesised and may hold spaces: the ppid follows its ")".
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Waits up to `ms` for the processes to exit; returns those still alive. */
export async function waitExited(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(100);
    alive = alive.filter(isAlive);
  }
  return alive;
}

/** TERM, then KILL whatever is still alive after `graceMs`. */
export async function terminate(pids: number[], graceMs = 10_000): Promise<void> {
  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  for (const pid of pids) signal(pid, 'SIGTERM');
  const left = await waitExited(pids, graceMs);
  for (const pid of left) signal(pid, 'SIGKILL');
  const stuck = await waitExited(left, 5_000);
  if (stuck.length > 0) throw new Error(`processes ${stuck.join(', ')} did not exit after SIGKILL`);
}
