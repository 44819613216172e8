// The operator as a real process (`flux-operator run`), for tests of what only a process shows:
// being killed, restarting, two replicas electing a leader.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { cluster, waitFor } from './cluster.ts';
import { usesNamespace } from './namespace-users.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface OperatorProcess {
  readonly child: ChildProcess;
  /** Every line the process printed (JSON logs). */
  readonly lines: string[];
  /** Resolves with the exit code (or the signal) once the process has ended. */
  readonly exited: Promise<number | string>;
  logged(message: string): boolean;
  kill(signal: NodeJS.Signals): Promise<number | string>;
}

export async function spawnOperator(
  namespace: string,
  extraArgs: readonly string[] = [],
  options: {
    kubeconfig?: string;
    /** Serve the operator's own conversion webhook where `run` does by default (127.0.0.1:0). */
    ownWebhook?: boolean;
  } = {},
): Promise<OperatorProcess> {
  const kubeconfig = options.kubeconfig ?? (await cluster()).kubeconfig;
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'run',
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      namespace,
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
      '--log-level',
      'debug',
      // The tests of one cluster share its conversion webhook (conversion-webhook.ts): none of its own
      // unless the test asks for one.
      ...(options.ownWebhook || extraArgs.some((arg) => arg.startsWith('--webhook-addr'))
        ? []
        : ['--webhook-addr', '0']),
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  let partial = '';
  const collect = (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter((line) => line !== ''));
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  const process_: OperatorProcess = {
    child,
    lines,
    exited,
    logged: (message) => lines.some((line) => line.includes(`"msg":"${message}"`)),
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  // Killed at the latest when its namespace's deletion fails (a test's later hooks are then skipped).
  usesNamespace(namespace, async () => {
    await process_.kill('SIGKILL');
  });
  try {
    await waitFor(() => process_.logged('caches started') || child.exitCode !== null, {
      what: 'the operator process to start',
      timeoutMs: 30_000,
    });
  } catch (error) {
    // Not left running: the caller has no handle to stop it, and its test file would never end.
    await process_.kill('SIGKILL');
    throw new Error(`${(error as Error).message}; its output:\n${lines.slice(-20).join('\n')}`, {
      cause: error,
    });
  }
  if (child.exitCode !== null)
    throw new Error(`the operator exited with ${child.exitCode}:\n${lines.join('\n')}`);
  return process_;
}
