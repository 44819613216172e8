// An exclusive lock shared with the hack/ build scripts: flock(1) on a lock file, held by a child
// process for as long as `fn` runs. The kernel drops it when that child ends, so a build that dies
// (even killed) never leaves a stale lock behind: the child's stdin closes and it exits.
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Runs `fn` while holding an exclusive flock on `lockFile` (created if missing). When another process
 * holds it, calls `onWait` once and waits for it.
 */
export async function withExclusiveLock<T>(
  lockFile: string,
  onWait: () => void,
  fn: () => Promise<T>,
): Promise<T> {
  await mkdir(path.dirname(lockFile), { recursive: true });
  // `flock FILE sh -c ...`: sh reports the lock, then waits for the end of its stdin (our pipe).
  const child = spawn('flock', ['--exclusive', lockFile, 'sh', '-c', 'echo locked && exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  const waiting = setTimeout(onWait, 300);
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        if (chunk.includes('locked')) resolve();
      });
      closed.then(
        (code) => reject(new Error(`flock ${lockFile} ended with exit code ${code}: ${stderr.trim()}`)),
        (err: unknown) => reject(err instanceof Error ? err : new Error(String(err))),
      );
    });
  } catch (err) {
    clearTimeout(waiting);
    child.kill();
    throw err;
  }
  clearTimeout(waiting);
  try {
    return await fn();
  } finally {
    child.stdin.end();
    await closed.catch(() => undefined);
  }
}
