// Runs a program of the machine (a build script, mmdebstrap, tar) for the image builds and the local cluster.
import { spawn } from 'node:child_process';

export interface RunCommandOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Called with each line the command writes to stderr (its progress). */
  onLine?: (line: string) => void;
}

/** How many of the last stderr lines a failure quotes. */
const TAIL_LINES = 40;

/**
 * Runs `command` and resolves with its stdout. A failure rejects with the exit code and the last lines
 * of stderr, or with the script's own `error: ...` line when it printed one (hack/lib.sh's `die`).
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let partial = '';
    const tail: string[] = [];
    const take = (line: string) => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      options.onLine?.(line);
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      lines.forEach(take);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (partial !== '') take(partial);
      if (code === 0) return resolve(out);
      const own = tail.filter((line) => line.startsWith('error: ')).pop();
      reject(
        new Error(
          own?.slice('error: '.length) ??
            `${command} failed with exit code ${code}; last output:\n${tail.join('\n')}`,
        ),
      );
    });
  });
}
