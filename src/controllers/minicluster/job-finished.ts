/** Whether the Job has ended, or is about to: Complete, Failed, or its success policy met (SuccessCriteriaMet). */
import type { V1Job } from '@kubernetes/client-node';

export function jobFinished(job: V1Job | undefined): boolean {
  return (job?.status?.conditions ?? []).some(
    (c) =>
      (c.type === 'Complete' || c.type === 'Failed' || c.type === 'SuccessCriteriaMet') &&
      c.status === 'True',
  );
}
