/**
 * The queue step, for a MiniCluster whose Job Kueue manages (a queue-name label): reads Kueue's
 * Workload for a suspended Job (why it waits), and decides with queue-status.ts what the status says
 * and which size the Job keeps. It writes nothing: the Job's `suspend` and what Kueue sets on its pod
 * template on admission are Kueue's, never in what the operator applies (server-side apply leaves
 * fields it does not own alone).
 */
import type { V1Job } from '@kubernetes/client-node';
import { LABEL_MINICLUSTER } from '../../api/index.ts';
import { describeApiError, isTransient } from '../../kube/api-errors.ts';
import { queueLabels } from '../../render/index.ts';
import { CONTINUE, continueAfter, type StepResult } from '../../runtime/steps.ts';
import { validOf, type Pass } from './pass.ts';
import { queueState, type KueueWorkload, type WorkloadReading } from './queue-status.ts';

/** Kueue's Workloads, as v0.17 serves them. */
export const WORKLOADS = { group: 'kueue.x-k8s.io', version: 'v1beta2', plural: 'workloads' } as const;
/** On each Workload Kueue makes for a Job: the Job's uid. */
const JOB_UID_LABEL = 'kueue.x-k8s.io/job-uid';
/**
 * How often a waiting MiniCluster's Workload is read again: its reason changes without the Job
 * changing (another workload finished, the quota changed); admission and eviction change the Job,
 * which starts a pass at once.
 */
export const QUEUE_POLL_MS = 15_000;

async function readWorkload(pass: Pass, job: V1Job): Promise<WorkloadReading> {
  const uid = job.metadata?.uid;
  if (uid === undefined) return { missing: true };
  try {
    const list = (await pass.deps.clients.custom.listNamespacedCustomObject({
      ...WORKLOADS,
      namespace: pass.namespace,
      labelSelector: `${JOB_UID_LABEL}=${uid}`,
    })) as { items?: KueueWorkload[] };
    const workload = list.items?.[0];
    return workload ? { workload } : { missing: true };
  } catch (error) {
    // No Kueue CRDs, or no right to read them: said in the status; anything passing is retried.
    if (isTransient(error)) throw error;
    return { unreadable: describeApiError(error) };
  }
}

export async function queue(pass: Pass): Promise<StepResult> {
  const { miniCluster, names } = validOf(pass);
  const { namespace, name, live } = pass;
  const cached = pass.deps.cache.jobs.get(names.job, namespace);
  const job = cached?.metadata?.labels?.[LABEL_MINICLUSTER] === name ? cached : undefined;
  const renderedLabels = { ...queueLabels(live.metadata.labels), ...miniCluster.spec.jobLabels };
  const size = pass.scale?.jobSize ?? miniCluster.spec.size;
  const probe = queueState({ job, renderedLabels, size });
  if (!probe) return CONTINUE;
  const reading = job && probe.waiting ? await readWorkload(pass, job) : undefined;
  const state = reading ? queueState({ job, renderedLabels, size, reading }) : probe;
  pass.queue = state;
  return state?.waiting ? continueAfter(QUEUE_POLL_MS) : CONTINUE;
}
