// Whether a cluster's Kueue is ready: its own readiness endpoint (the webhook server listening), and its
// webhook answering the API server, which is what users of the cluster depend on.
import { request } from 'node:http';
import type { V1Job } from '@kubernetes/client-node';
import type { ApiClients } from '../../../../src/kube/api-clients.ts';
import { within } from '../poll.ts';

/** The label that puts a Job in a Kueue LocalQueue (Kueue's constants). */
export const QUEUE_NAME_LABEL = 'kueue.x-k8s.io/queue-name';

const CALL_TIMEOUT_MS = 10_000;

/** Whether `GET /readyz` on Kueue's health port answers 200. */
export function kueueReadyz(port: number, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** A Job in a queue that need not exist: Kueue's mutating webhook suspends it all the same. */
export function probeJob(): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { generateName: 'kueue-webhook-probe-', labels: { [QUEUE_NAME_LABEL]: 'kueue-webhook-probe' } },
    spec: {
      template: {
        spec: { restartPolicy: 'Never', containers: [{ name: 'probe', image: 'localhost/none' }] },
      },
    },
  };
}

/**
 * Whether the API server, creating a Job in a Kueue queue (a dry run: nothing is stored), gets it back
 * suspended: Kueue's mutating webhook answered through the API server, on the URL and CA installed.
 */
export async function kueueWebhookAnswers({ batch }: ApiClients, namespace = 'default'): Promise<boolean> {
  const created = await within(
    'the API server (a dry-run Job for Kueue)',
    CALL_TIMEOUT_MS,
    batch.createNamespacedJob({ namespace, body: probeJob(), dryRun: 'All' }),
  );
  return created.spec?.suspend === true;
}
