// The tests' shared conversion webhook of a local cluster (conversion-webhook-process.ts): started once
// per cluster, on first use, detached so that it outlives the test file that started it; found again
// through its state file beside the cluster's kubeconfig. Operators the tests start serve none
// (--webhook-addr 0, or no conversionWebhook in-process) unless a test is about the webhook itself,
// and those run on a cluster of their own; operators the tests install serve one but leave the CRD to
// this one (--leave-crd-conversion), since their pods come and go.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConversionClientConfig } from '../../src/api/index.ts';
import { withLock } from '../../workbench/src/localcluster/lock.ts';
import { isAlive } from '../../workbench/src/localcluster/procfs.ts';
import { waitFor } from './cluster.ts';

const PROCESS_SCRIPT = fileURLToPath(new URL('./conversion-webhook-process.ts', import.meta.url));

interface WebhookState {
  readonly pid: number;
  readonly clientConfig: ConversionClientConfig;
}

function stateFileOf(kubeconfig: string): string {
  return path.join(path.dirname(kubeconfig), 'conversion-webhook.json');
}

function readState(file: string): WebhookState | undefined {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as WebhookState;
    return isAlive(state.pid) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Where the cluster's shared webhook serves (its URL and caBundle), starting it when none runs. */
export async function ensureConversionWebhook(kubeconfig: string): Promise<ConversionClientConfig> {
  const file = stateFileOf(kubeconfig);
  const running = readState(file);
  if (running) return running.clientConfig;
  return withLock(
    `${file}.lock`,
    () => undefined,
    'starting the conversion webhook',
    async () => {
      const again = readState(file);
      if (again) return again.clientConfig;
      const logFile = path.join(path.dirname(kubeconfig), 'conversion-webhook.log');
      const out = openSync(logFile, 'a');
      const child = spawn(process.execPath, [PROCESS_SCRIPT, kubeconfig, file], {
        detached: true,
        stdio: ['ignore', out, out],
      });
      closeSync(out);
      child.unref();
      const state = await waitFor(() => (existsSync(file) ? readState(file) : undefined), {
        what: `the tests' conversion webhook to serve (its log: ${logFile})`,
        timeoutMs: 30_000,
      });
      return state.clientConfig;
    },
  );
}

/** Stops the cluster's shared webhook, if one runs (the global teardown, with the cluster). */
export function stopConversionWebhook(kubeconfig: string): void {
  const state = readState(stateFileOf(kubeconfig));
  if (state) process.kill(state.pid, 'SIGTERM');
}
