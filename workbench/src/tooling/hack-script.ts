// Runs the project's hack/ scripts (builds, packages) from TypeScript, passing their progress on.
import path from 'node:path';
import { runCommand } from './command.ts';
import { findProjectRoot } from './project.ts';

/** Where a long step reports what it is doing, one line at a time. */
export type Progress = (line: string) => void;

export interface HackScriptOptions {
  /** Progress lines; stderr, tagged `[hack]`, unless given. */
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs one of the hack/ scripts (builds, packages), passing its `[tag]` progress lines on, with a
 * reminder every two minutes; returns the last line of its stdout (the scripts print where they put
 * what they built).
 */
export async function runHackScript(
  script: string,
  args: readonly string[] = [],
  options: HackScriptOptions = {},
): Promise<string> {
  const progress = options.progress ?? ((line: string) => process.stderr.write(`[hack] ${line}\n`));
  const root = findProjectRoot();
  const started = Date.now();
  const timer = setInterval(() => {
    progress(`still building (${Math.round((Date.now() - started) / 60_000)} min so far)`);
  }, 120_000);
  try {
    const out = await runCommand('bash', [path.join(root, 'hack', script), ...args], {
      cwd: root,
      ...(options.env !== undefined ? { env: options.env } : {}),
      onLine: (line) => {
        if (/^\[(build-|packages)/.test(line)) progress(line);
      },
    });
    return out.trim().split('\n').pop() ?? '';
  } finally {
    clearInterval(timer);
  }
}
