/**
 * A Job the operator stops because a pod of it can never start a broker (status.ts, brokersKeptOut):
 * the kubelet restarts a failed sidecar for ever, so neither the pod nor the Job would ever end. Its
 * activeDeadlineSeconds set to the least the API accepts makes the Job controller fail the Job at once
 * and remove its pods; why goes on the Job, in an annotation, where the Failed condition finds it once
 * the pods that said it are gone. Pure: the render step puts it on the Job it applies.
 */
import type { V1Job } from '@kubernetes/client-node';
import type { KubeObject } from '../../render/index.ts';
import { jobFinished } from './job-finished.ts';

export const STOPPED_ANNOTATION = 'flux-framework.org/stopped-because';
/** The Job's activeDeadlineSeconds that ends a running Job at once (the API refuses 0). */
export const STOP_DEADLINE_SECONDS = 1;

/** Why the operator stopped this Job, if it did. */
export function stoppedBecause(job: V1Job | undefined): string | undefined {
  return job?.metadata?.annotations?.[STOPPED_ANNOTATION];
}

/**
 * Why the Job is to be stopped: as it was once stopped (the annotation stays while the Job does), or
 * for pods kept out of their brokers now (`keptOut`), unless the Job ended already for its own reasons.
 */
export function stopReason(liveJob: V1Job | undefined, keptOut: string | undefined): string | undefined {
  return stoppedBecause(liveJob) ?? (liveJob === undefined || jobFinished(liveJob) ? undefined : keptOut);
}

/** The rendered Job, stopped for `because`; other objects, or no reason, as they are. */
export function withStoppedJob(object: KubeObject, because: string | undefined): KubeObject {
  if (object.kind !== 'Job' || because === undefined) return object;
  const job = object as KubeObject & V1Job;
  return {
    ...job,
    metadata: {
      ...job.metadata,
      annotations: { ...job.metadata.annotations, [STOPPED_ANNOTATION]: because },
    },
    spec: { ...job.spec, activeDeadlineSeconds: STOP_DEADLINE_SECONDS },
  } as KubeObject;
}
