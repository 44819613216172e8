// ConversionReviews sent in a loop to a conversion webhook's Service, the way the API server sends
// them: to the Service's ClusterIP (this machine routes it through the real node's kube-proxy), over
// kept-alive connections, TLS verified for the Service's DNS name against its CA. Each review carries
// one v1alpha1 MiniCluster to convert to v1alpha2. For the failover scenarios: does conversion keep
// answering while an operator pod goes?
import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_VERSION } from '../../src/api/index.ts';
import {
  CONVERSION_REVIEW_API_VERSION,
  CONVERSION_REVIEW_KIND,
} from '../../src/controllers/conversion/review.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';

/**
 * The API server gives a conversion webhook 30 s, and so does a review here: what fails here would fail
 * a user's request. A review sent to a pod that is gone never answers; one slowed by a starved machine
 * (a CI run saw two past 10 s while the new leader started) answers late, and the slowest is reported.
 */
const REVIEW_TIMEOUT_MS = 30_000;
const PAUSE_MS = 20;

export interface ConversionLoop {
  /**
   * Stops sending; resolves with how many reviews were answered, the slowest answer (ms, and when it
   * was sent) and each failure, with its time.
   */
  stop(): Promise<{ answered: number; slowest: { ms: number; sentAt: string }; failures: string[] }>;
}

function review(agent: Agent, url: URL, servername: string, ca: string, object: object): Promise<void> {
  const uid = `loop-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const body = JSON.stringify({
    apiVersion: CONVERSION_REVIEW_API_VERSION,
    kind: CONVERSION_REVIEW_KIND,
    request: { uid, desiredAPIVersion: API_VERSION, objects: [object] },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        ca,
        servername,
        timeout: REVIEW_TIMEOUT_MS,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            const answer = JSON.parse(text) as {
              response?: {
                uid?: string;
                result?: { status?: string };
                convertedObjects?: { apiVersion?: string }[];
              };
            };
            const converted = answer.response?.convertedObjects?.[0]?.apiVersion;
            if (
              res.statusCode === 200 &&
              answer.response?.uid === uid &&
              answer.response.result?.status === 'Success' &&
              converted === API_VERSION
            ) {
              resolve();
            } else reject(new Error(`HTTP ${res.statusCode ?? '?'}: ${text.slice(0, 200)}`));
          } catch {
            reject(new Error(`HTTP ${res.statusCode ?? '?'}: not JSON: ${text.slice(0, 200)}`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${REVIEW_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts converting `object` (a v1alpha1 MiniCluster) through the Service `namespace/name` in a loop,
 * `parallel` reviews at a time; `caPem` is the CA its certificate chains to.
 */
export async function convertInLoop(
  clients: ApiClients,
  service: { readonly namespace: string; readonly name: string },
  caPem: string,
  object: object,
  parallel = 2,
): Promise<ConversionLoop> {
  const found = await clients.core.readNamespacedService(service);
  const ip = found.spec?.clusterIP;
  if (!ip || ip === 'None') throw new Error(`Service ${service.namespace}/${service.name} has no ClusterIP`);
  const url = new URL(`https://${ip}:443/convert`);
  const servername = `${service.name}.${service.namespace}.svc`;
  // As the API server's client: connections kept and reused between reviews.
  const agent = new Agent({ keepAlive: true, maxSockets: parallel });
  const started = Date.now();
  let answered = 0;
  const slowest = { ms: 0, sentAt: '' };
  const failures: string[] = [];
  const since = (at: number) => `+${((at - started) / 1000).toFixed(2)} s`;
  let running = true;
  const worker = async () => {
    while (running) {
      const sent = Date.now();
      try {
        await review(agent, url, servername, caPem, object);
        answered++;
        const ms = Date.now() - sent;
        if (ms > slowest.ms) Object.assign(slowest, { ms, sentAt: since(sent) });
      } catch (error) {
        failures.push(`${since(Date.now())} (sent ${since(sent)}): ${(error as Error).message}`);
      }
      await sleep(PAUSE_MS);
    }
  };
  const workers = Array.from({ length: parallel }, () => worker());
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      agent.destroy();
      return { answered, slowest, failures };
    },
  };
}
