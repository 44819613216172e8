// A lock file between processes: created exclusively, holding the holder's pid, taken over when that
// process died.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './procfs.ts';
import type { Progress } from '../tooling/hack-script.ts';

/**
 * Runs fn holding `file`; `waiting` says what the holder is doing, once, when we have to wait, for at
 * most `waitMs` (a holder that builds for longer than the default needs a longer one).
 */
export async function withLock<T>(
  file: string,
  progress: Progress,
  waiting: string,
  fn: () => Promise<T>,
  waitMs = 10 * 60_000,
): Promise<T> {
  mkdirSync(path.dirname(file), { recursive: true });
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: number;
    try {
      holder = Number(readFileSync(file, 'utf8').trim());
    } catch {
      continue; // just released
    }
    if (holder > 0 && !isAlive(holder)) {
      rmSync(file, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for the lock ${file} held by process ${holder}`);
    if (!told) progress(`waiting for process ${holder || '?'}, which is ${waiting}`);
    told = true;
    await sleep(250);
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}
