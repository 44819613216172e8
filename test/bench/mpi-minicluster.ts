// The MiniClusters of `npm run bench -- --mpi`: an interactive one whose brokers run `flux run`s given
// through `kubectl exec`, and one whose command is the program, timed from the apply to Succeeded (as
// view-sample.ts times a MiniCluster). Each is deleted, and gone with its pods' folders, before the next
// step. Every call to the cluster or a pod has a timeout.
import { applyMiniCluster, waitForCondition } from '../harness/operator.ts';
import { fluxFromView, leadLog, podAt, waitForNodesUp } from '../harness/real-node.ts';
import { orAbort, withCleanUp } from './mpi-cleanup.ts';
import { leadPhases, withoutTimestamps, type LeadPhases } from './mpi-phases.ts';
import type { ViewSample } from './view-result.ts';
import {
  REQUEST_TIMEOUT_MS,
  deleteMiniCluster,
  measureMiniCluster,
  within,
  type SampleTarget,
} from './view-sample.ts';

/**
 * Applies the interactive MiniCluster, waits until it is Ready with every broker in its instance, hands
 * its lead pod's name to `use`, and deletes it whatever happened.
 */
export async function withInteractiveMiniCluster<T>(
  target: SampleTarget,
  miniCluster: Record<string, unknown>,
  use: (lead: string) => Promise<T>,
): Promise<T> {
  const { clients, namespace, name, size, timeoutMs } = target;
  return withCleanUp(
    async () => {
      await within(REQUEST_TIMEOUT_MS, `applying ${name}`, applyMiniCluster(clients, miniCluster));
      const wait = <R>(what: string, promise: Promise<R>) =>
        orAbort(target.signal, within(timeoutMs + REQUEST_TIMEOUT_MS, what, promise));
      await wait(`${name} Ready`, waitForCondition(clients, namespace, name, 'Ready', 'True', timeoutMs));
      const lead = (await wait(`${name}'s lead pod`, podAt(clients, namespace, name, 0, timeoutMs))).metadata
        ?.name;
      if (lead === undefined) throw new Error(`the lead pod of ${namespace}/${name} has no name`);
      await wait(`${name}'s brokers`, waitForNodesUp(namespace, lead, size, timeoutMs, fluxFromView));
      target.signal.throwIfAborted();
      return use(lead);
    },
    () => deleteMiniCluster(target),
  );
}

/** `flux <args>` in the lead pod (as a user runs it there); its standard output and error, together. */
export async function fluxRun(target: SampleTarget, lead: string, args: readonly string[]): Promise<string> {
  const { stdout, stderr } = await orAbort(
    target.signal,
    within(
      target.timeoutMs,
      `flux ${args.join(' ')} in ${target.namespace}/${lead}`,
      fluxFromView(target.namespace, lead, [...args]),
    ),
  );
  return `${stdout}\n${stderr}`;
}

/**
 * Applies the MiniCluster whose command is the program and times it to Succeeded; resolves with the
 * timing, its lead broker's log and where the time went in it (mpi-phases.ts), and deletes it
 * whatever happened.
 */
export async function runToSucceeded(
  target: SampleTarget,
  miniCluster: Record<string, unknown>,
): Promise<{ sample: ViewSample; log: string; phases: LeadPhases }> {
  return withCleanUp(
    async () => {
      const appliedAtMs = Date.now();
      // 'view': Flux from the view, the v1alpha2 default.
      const sample = await measureMiniCluster(target, 'view', miniCluster);
      const stamped = await within(
        REQUEST_TIMEOUT_MS,
        `the lead broker's log of ${target.name}`,
        leadLog(target.clients, target.namespace, target.name, undefined, { timestamps: true }),
      );
      return { sample, log: withoutTimestamps(stamped), phases: leadPhases(stamped, appliedAtMs) };
    },
    () => deleteMiniCluster(target),
  );
}
