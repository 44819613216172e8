/**
 * A running Job keeps the pod template it was made with, unless the MiniCluster's spec changed.
 *
 * A Job's pod template cannot change, and a new operator build may render another one from the same
 * spec (a script, a mount): applied as rendered, every running MiniCluster would stop on "recreate"
 * after an upgrade although nobody changed it. So the Job carries the key of the spec its template
 * came from (every field but `size`, which a running Job takes), and while the spec has that key the
 * live template is applied back as it is. A spec change still gets the rendered template, which the
 * API server refuses: the status then says to recreate the MiniCluster, as it should.
 */
import { createHash } from 'node:crypto';
import type { V1Job } from '@kubernetes/client-node';
import type { KubeObject } from '../../render/index.ts';
import { canonical } from './canonical.ts';
import { containsDesired } from './desired-state.ts';

/** The reason a condition gives when the API server refused a Job's new pod template. */
export const SPEC_CHANGE_NEEDS_RECREATE = 'SpecChangeNeedsRecreate';

/** On the Job: the key of the MiniCluster spec its pod template was rendered from. */
export const TEMPLATE_SPEC_ANNOTATION = 'flux-framework.org/pod-template-spec';

/** The key of a MiniCluster spec as far as the pod template goes: all of it but `size`. */
export function templateSpecKey(spec: unknown): string {
  const { size: _size, ...rest } = (spec ?? {}) as Record<string, unknown>;
  return createHash('sha256')
    .update(JSON.stringify(canonical(rest)))
    .digest('hex')
    .slice(0, 40);
}

/** The rendered Job with the key of the spec it came from; other objects as they are. */
export function withTemplateSpecKey(object: KubeObject, specKey: string): KubeObject {
  if (object.kind !== 'Job') return object;
  const annotations = { ...object.metadata.annotations, [TEMPLATE_SPEC_ANNOTATION]: specKey };
  return { ...object, metadata: { ...object.metadata, annotations } };
}

/**
 * The rendered Job (stamped by withTemplateSpecKey) with the running Job's pod template, when that Job
 * was made from the same spec; undefined when it was not (a spec change: the rendered template goes
 * to the API server, which refuses it). A Job an older build made has no key: it was made from this
 * spec when the operator had seen the spec through (`specSeen`: its status observes the spec's
 * generation, and no template was refused).
 */
export function keepingLiveTemplate(
  rendered: KubeObject,
  live: V1Job | undefined,
  specSeen: boolean,
): KubeObject | undefined {
  const job = rendered as KubeObject & V1Job;
  const template = live?.spec?.template;
  if (job.kind !== 'Job' || !job.spec || !template) return undefined;
  // The rendered template is the running one already (with the API server's defaults): nothing to keep.
  if (containsDesired(job.spec.template, template)) return undefined;
  const liveKey = live.metadata?.annotations?.[TEMPLATE_SPEC_ANNOTATION];
  const specKey = job.metadata.annotations?.[TEMPLATE_SPEC_ANNOTATION];
  const sameSpec = liveKey === undefined ? specSeen : liveKey === specKey;
  if (!sameSpec) return undefined;
  // Without the labels the Job controller put there: applied by the operator, they would become its
  // own, and the next template it applies (after a spec change) would take them away, which the API
  // server refuses with another error than the one that says to recreate.
  const labels = Object.fromEntries(
    Object.entries(template.metadata?.labels ?? {}).filter(([key]) => !JOB_CONTROLLER_LABELS.includes(key)),
  );
  const kept = { ...template, metadata: { ...template.metadata, labels } };
  return { ...job, spec: { ...job.spec, template: kept } } as KubeObject;
}

/** The labels the Job controller adds to a Job's pod template (its selector's). */
const JOB_CONTROLLER_LABELS = [
  'controller-uid',
  'job-name',
  'batch.kubernetes.io/controller-uid',
  'batch.kubernetes.io/job-name',
];
