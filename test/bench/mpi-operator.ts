// The operator of `npm run bench -- --mpi`: view-operator-process.ts (the compiled operator, out of
// cluster, watching the bench's namespace, with this tree's Flux view image) in a process of its own,
// started until it reconciles and stopped with SIGTERM (SIGKILL when that takes too long).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { within } from './view-sample.ts';

const PROCESS = fileURLToPath(new URL('./view-operator-process.ts', import.meta.url));
const START_MS = 60_000;
const STOP_MS = 15_000;
/** The log line of an operator that leads and reconciles. */
const RECONCILING = '"msg":"leading: reconciling';

export interface OperatorProcess {
  /** Its last warnings and errors (JSON lines), to explain a failed run. */
  complaints(): string;
  stop(): Promise<void>;
}

export async function startOperatorProcess(
  kubeconfig: string,
  namespace: string,
  fluxViewImage: string,
): Promise<OperatorProcess> {
  const child = spawn(process.execPath, [PROCESS, kubeconfig, namespace, fluxViewImage], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  exited.catch(() => undefined);
  const lines: string[] = [];
  const reconciling = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (line.includes(RECONCILING)) resolve();
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the operator ended (${code ?? signal}) before it reconciled:\n${lines.join('\n')}`)),
    );
  });
  const operator: OperatorProcess = {
    complaints: () =>
      lines
        .filter((line) => /"level":"(warn|error)"/.test(line))
        .slice(-20)
        .join('\n'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      try {
        await within(STOP_MS, 'the operator stopping', exited);
      } catch {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
  try {
    await within(START_MS, 'the operator reconciling', reconciling);
  } catch (error) {
    await operator.stop();
    throw error;
  }
  return operator;
}
