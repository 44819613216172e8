/**
 * A MiniCluster under Kueue (its Job carries `kueue.x-k8s.io/queue-name`), as a pure function of the
 * Job and Kueue's Workload for it: the `Queued` condition (True while Kueue holds the Job suspended,
 * with Kueue's own reason and message), and the size the Job must keep while it runs.
 *
 * Kueue admits a Job for the pod count it had when admitted. Changing `parallelism` of an admitted,
 * running Job that is not elastic makes Kueue stop all of its pods and queue it again, and between the
 * write and Kueue's stop the Job controller may start pods the quota never admitted. So while the
 * Job runs, the operator keeps its size and says so; a new size goes to the Job while Kueue holds it
 * suspended (queued, or evicted), where Kueue updates the pending Workload to match.
 */
import type { V1Job } from '@kubernetes/client-node';
import { CONDITION_QUEUED, CONDITION_SCALING } from '../../api/index.ts';
import { queueNameOf } from '../../render/index.ts';
import type { DesiredCondition } from './status.ts';

/** The part of a Kueue Workload (kueue.x-k8s.io/v1beta2) read here. */
export interface KueueWorkload {
  readonly metadata?: { readonly name?: string };
  readonly status?: {
    readonly conditions?: readonly {
      readonly type?: string;
      readonly status?: string;
      readonly reason?: string;
      readonly message?: string;
    }[];
    readonly admission?: {
      readonly clusterQueue?: string;
      readonly podSetAssignments?: readonly { readonly count?: number }[];
    };
    /** After a PodsReadyTimeout: how many times, and when its backoff ends (unset once it has). */
    readonly requeueState?: { readonly count?: number; readonly requeueAt?: string };
  };
}

/** What the queue step learned of the Workload: it, none yet, or why it could not be read. */
export type WorkloadReading =
  { readonly workload: KueueWorkload } | { readonly missing: true } | { readonly unreadable: string };

export interface QueueState {
  /** The queue (LocalQueue) the Job waits in. */
  readonly queue: string;
  readonly condition: DesiredCondition;
  /** True while Kueue holds the Job suspended: no broker runs, none may start. */
  readonly waiting: boolean;
  /** The size the Job keeps (an admitted, running Job is not resized: see the file's comment). */
  readonly jobSize?: number;
  /** The Scaling condition while a new size waits for the next admission. */
  readonly scaling?: DesiredCondition;
}

/** The label Kueue puts on an admitted Job's pod template: the ClusterQueue that admitted it. */
const CLUSTER_QUEUE_LABEL = 'kueue.x-k8s.io/cluster-queue-name';

/** Kueue's eviction reason when an admitted Workload's pods were not all Ready in time (waitForPodsReady). */
const PODS_READY_TIMEOUT = 'PodsReadyTimeout';

/** Kueue's phrase for a request above all the quota the queue could ever lend it (flavorassigner). */
const NEVER_FITS = /> maximum capacity/;

function trueCondition(workload: KueueWorkload | undefined, type: string) {
  return workload?.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

function queued(reason: string, message: string): DesiredCondition {
  return { type: CONDITION_QUEUED, status: 'True', reason, message };
}

/** Kueue's reason as a condition reason (CamelCase: Kueue's are already, this keeps them so). */
function reasonOf(reason: string | undefined, fallback: string): string {
  return reason !== undefined && /^[A-Za-z][A-Za-z0-9_]*$/.test(reason) ? reason : fallback;
}

/**
 * What a PodsReadyTimeout means and what to do: Kueue's message names only the Workload. The pods that
 * never got Ready are gone (Kueue suspended the Job), so their reason can no longer be read from them;
 * the user finds it from their events, or from the next admission's pods. Kueue admits it again after
 * its backoff, on and on, until it is fixed or deleted.
 */
function podsReadyAdvice(workload: KueueWorkload, since: string): string {
  const { count, requeueAt } = workload.status?.requeueState ?? {};
  const times = count === undefined ? '' : ` (${count === 1 ? 'once' : `${count} times`} so far)`;
  const when =
    requeueAt === undefined
      ? 'its backoff is over and it waits to be admitted again'
      : `Kueue queues it again at ${requeueAt}, after its backoff`;
  return `: not all of its pods were Ready within Kueue's waitForPodsReady timeout, so Kueue stopped its brokers and gave its quota back${times}; ${when}${since}. Find why its pods do not become Ready (kubectl get events: an image that is not on the node, a pod that cannot be scheduled, a failing init container) and fix the MiniCluster, or Kueue keeps admitting and evicting it`;
}

/**
 * Why a suspended Job waits, from its Workload: not yet made; evicted (Kueue's eviction reason:
 * Preempted, PodsReadyTimeout, ...) and queued again; or pending (Kueue's QuotaReserved reason and
 * message: Pending with the quota it lacks, Inadmissible when the queue does not exist or is stopped).
 * A request larger than the queue can ever give says so first.
 */
function waitingCondition(queue: string, job: string, reading: WorkloadReading): DesiredCondition {
  if ('unreadable' in reading) {
    return queued(
      'WorkloadUnreadable',
      `queue ${queue}: Kueue holds the Job suspended; its Workload cannot be read (${reading.unreadable})`,
    );
  }
  if ('missing' in reading) {
    return queued('WaitingForWorkload', `queue ${queue}: Kueue has not made the Workload of Job ${job} yet`);
  }
  const { workload } = reading;
  const name = workload.metadata?.name ?? '?';
  const reserved = workload.status?.conditions?.find((c) => c.type === 'QuotaReserved');
  const evicted = trueCondition(workload, 'Evicted');
  if (trueCondition(workload, 'QuotaReserved') && !evicted) {
    return queued('Admitted', `queue ${queue}: Workload ${name} is admitted; Kueue is starting the Job`);
  }
  const pending = reserved?.message ? `: ${reserved.message}` : '';
  if (evicted) {
    const cause = `${evicted.reason ?? 'Evicted'}${evicted.message ? `: ${evicted.message}` : ''}`;
    // Kueue gives the pending Workload the eviction's message until it looks at it again: said once.
    const since = reserved?.message && reserved.message !== evicted.message ? pending : '';
    if (evicted.reason === PODS_READY_TIMEOUT) {
      return queued(
        PODS_READY_TIMEOUT,
        `queue ${queue}: evicted by Kueue (${cause})${podsReadyAdvice(workload, since)}`,
      );
    }
    return queued(
      reasonOf(evicted.reason, 'Evicted'),
      `queue ${queue}: evicted by Kueue (${cause}); its brokers stopped and it waits to be admitted again${since}`,
    );
  }
  const reason = reasonOf(reserved?.reason, 'Pending');
  if (reserved?.message && NEVER_FITS.test(reserved.message)) {
    return queued(
      reason,
      `queue ${queue}: can never be admitted as it is, it asks for more than the queue can ever give (Workload ${name}${pending}); lower its size or its requests, or give the queue more quota`,
    );
  }
  return queued(reason, `queue ${queue}: waiting for Kueue to admit Workload ${name}${pending}`);
}

/**
 * The MiniCluster's state under Kueue, or undefined when its Job (rendered or live) names no queue.
 * `size` is the size this pass would give the Job; `reading` what the queue step read of the Workload
 * (only while the Job is suspended: a running one is described from its own labels).
 */
export function queueState(input: {
  readonly job: V1Job | undefined;
  readonly renderedLabels: Readonly<Record<string, string>> | undefined;
  readonly size: number;
  readonly reading?: WorkloadReading;
}): QueueState | undefined {
  const { job, size } = input;
  const queue = queueNameOf(job?.metadata?.labels) ?? queueNameOf(input.renderedLabels);
  if (queue === undefined) return undefined;
  const jobName = job?.metadata?.name ?? '?';
  if (!job) {
    return {
      queue,
      waiting: true,
      condition: queued('JobPending', `queue ${queue}: the Job has not been created yet`),
    };
  }
  if (job.spec?.suspend === true) {
    const condition = waitingCondition(queue, jobName, input.reading ?? { missing: true });
    return { queue, waiting: true, condition };
  }
  const admittedBy = job.spec?.template?.metadata?.labels?.[CLUSTER_QUEUE_LABEL];
  const running = job.spec?.parallelism ?? size;
  const condition: DesiredCondition =
    admittedBy === undefined
      ? {
          type: CONDITION_QUEUED,
          status: 'False',
          reason: 'NotManagedByKueue',
          message: `queue ${queue}: the Job runs without Kueue's admission (no Kueue webhook suspended it when it was made: is Kueue installed, with the batch/job integration?)`,
        }
      : {
          type: CONDITION_QUEUED,
          status: 'False',
          reason: 'Admitted',
          message: `queue ${queue}: admitted by Kueue in ClusterQueue ${admittedBy} for ${running} pods`,
        };
  if (admittedBy === undefined || running === size) return { queue, waiting: false, condition };
  return {
    queue,
    waiting: false,
    condition,
    jobSize: running,
    scaling: {
      type: CONDITION_SCALING,
      status: 'False',
      reason: 'WaitingForReadmission',
      message: `Kueue admitted ${running} brokers; spec.size ${size} is given to the Job when Kueue next holds it suspended (an eviction) and is admitted as a whole then: resizing an admitted Job would make Kueue stop every broker, and pods outside the quota could start before it did`,
    },
  };
}
