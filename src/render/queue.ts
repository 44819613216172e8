/**
 * Kueue's labels on the Job. Kueue manages a Job that carries `kueue.x-k8s.io/queue-name`: it creates
 * it suspended and admits all of its pods at once. A MiniCluster names its queue either in its own
 * labels or, as Go operator users write it, in v1alpha2 `spec.jobLabels`; the Job gets Kueue's labels
 * from both, `spec.jobLabels` winning where both set one.
 */
import { LABEL_QUEUE_NAME, QUEUE_LABEL_KEYS } from '../api/index.ts';
import type { KubeObject } from './kube-object.ts';

/** Kueue's labels among a MiniCluster's own labels (the queue name, the priority class), sorted. */
export function queueLabels(labels: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(
    QUEUE_LABEL_KEYS.filter((key) => labels?.[key] !== undefined).map((key) => [key, labels?.[key] ?? '']),
  );
}

/**
 * The rendered Job with Kueue's labels of the MiniCluster (`labels`) that it lacks; the same object
 * when it has them all (or is no Job), so that a pass whose labels did not change writes nothing.
 */
export function withQueueLabels(
  object: KubeObject,
  labels: Readonly<Record<string, string>> | undefined,
): KubeObject {
  if (object.kind !== 'Job') return object;
  const own = object.metadata.labels ?? {};
  const missing = Object.entries(queueLabels(labels)).filter(([key]) => own[key] === undefined);
  if (missing.length === 0) return object;
  return { ...object, metadata: { ...object.metadata, labels: { ...Object.fromEntries(missing), ...own } } };
}

/** The queue a Job waits in (its queue-name label), if Kueue manages it. */
export function queueNameOf(labels: Readonly<Record<string, string>> | undefined): string | undefined {
  const name = labels?.[LABEL_QUEUE_NAME];
  return name === undefined || name === '' ? undefined : name;
}
