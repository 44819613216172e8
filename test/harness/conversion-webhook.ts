// The tests' shared conversion webhook of a local cluster (conversion-webhook-process.ts): started once
// per cluster, on first use, detached so that it outlives the test file that started it; found again
// through its state file beside the cluster's kubeconfig. Operators the tests start serve none
// (--webhook-addr 0, or no conversionWebhook in-process) unless a test is about the webhook itself,
// and those run on a cluster of their own.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRD_NAME, type ConversionClientConfig } from '../../src/api/index.ts';
import { apiClients } from '../../src/kube/api-clients.ts';
import { loadClusterAccess } from '../../src/kube/cluster-access.ts';
import { withLock } from '../../src/localcluster/lock.ts';
import { isAlive } from '../../src/localcluster/procfs.ts';
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

/**
 * Points the CRD back at the cluster's shared webhook at once: a test whose installed operator holds
 * the CRD calls it before removing that operator, so that no request of another test meets a
 * webhook that is going away.
 */
export async function reclaimConversionWebhook(kubeconfig: string): Promise<void> {
  const clientConfig = await ensureConversionWebhook(kubeconfig);
  const transport = apiClients(loadClusterAccess(kubeconfig)).transport;
  await transport.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`, {
    body: {
      spec: {
        conversion: {
          webhook: {
            clientConfig: 'url' in clientConfig ? { ...clientConfig, service: null } : clientConfig,
          },
        },
      },
    },
    contentType: 'application/merge-patch+json',
    timeoutMs: 10_000,
  });
}
