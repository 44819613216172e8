/**
 * `flux-operator burst status`: what bursting is doing, from the cluster's own records: every
 * MiniCluster with burst slots, its lead broker address, its Bursting condition and its burst
 * clusters (where, how big, for which jobs), and the burst targets with their Connected condition.
 */
import {
  CONDITION_BURSTING,
  PLURAL,
  type MiniClusterV1alpha1,
  type MiniClusterV1alpha1Status,
} from '../api/index.ts';
import { isNotFound } from '../kube/api-errors.ts';
import { apiClientsFor, loadKubeConfig } from '../kube/clients.ts';
import type { ApiClients } from '../kube/api-clients.ts';
import { InputError } from './input-error.ts';
import type { KubernetesObject } from '@kubernetes/client-node';
import { listCustomObjects } from '../kube/custom-objects.ts';
import { namespacedName } from '../api/index.ts';

export interface BurstStatusOptions {
  readonly kubeconfig?: string;
  /** Only this namespace; all when unset. */
  readonly namespace?: string;
}

type Listed = MiniClusterV1alpha1 & { status?: MiniClusterV1alpha1Status };
interface ListedTarget {
  metadata: { name: string; namespace?: string };
  spec?: { provider?: string };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

async function list<T extends KubernetesObject>(
  clients: ApiClients,
  plural: string,
  namespace: string | undefined,
): Promise<T[]> {
  return (await listCustomObjects<T>(clients.custom, plural, namespace)).items;
}

function table(rows: string[][]): string[] {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/** The report as text, from listed MiniClusters and burst targets (pure; the command lists them). */
export function formatBurstStatus(
  miniClusters: readonly Listed[],
  targets: readonly ListedTarget[] | undefined,
): string {
  const lines: string[] = [];
  const bursting = miniClusters.filter((mc) => (mc.spec.flux?.bursting?.clusters?.length ?? 0) > 0);
  if (bursting.length === 0) lines.push('No MiniCluster declares burst slots (spec.flux.bursting.clusters).');
  for (const mc of bursting) {
    const status = mc.status ?? {};
    const where = status.leadBroker?.address
      ? `${status.leadBroker.address}:${status.leadBroker.port ?? '?'}`
      : 'not known yet';
    const condition = status.conditions?.find((c) => c.type === CONDITION_BURSTING);
    const slots = (mc.spec.flux?.bursting?.clusters ?? [])
      .map((slot) => `${slot.name ?? '?'} (${slot.size ?? mc.spec.size ?? 1})`)
      .join(', ');
    lines.push(`MiniCluster ${namespacedName(mc)}: lead broker at ${where}; slots ${slots}`);
    lines.push(
      `  Bursting: ${condition ? `${condition.status} ${condition.reason}: ${condition.message}` : 'no pass yet'}`,
    );
    const bursts = status.bursts ?? [];
    if (bursts.length === 0) lines.push('  no burst clusters');
    else {
      const rows = [['SLOT', 'TARGET', 'NAME', 'SIZE', 'STATE', 'JOBS']];
      for (const burst of bursts) {
        rows.push([
          burst.slot,
          burst.target,
          `${burst.namespace}/${burst.name}`,
          String(burst.size),
          burst.state,
          (burst.jobs ?? []).join(',') || '-',
        ]);
      }
      lines.push(...table(rows).map((line) => `  ${line}`));
    }
    const unserved = status.burstJobs ?? [];
    if (unserved.length > 0) {
      lines.push('  waiting burstable jobs no burst cluster serves:');
      for (const job of unserved) lines.push(`    ${job.id} ${job.reason}: ${job.message}`);
    }
  }
  lines.push('');
  if (targets === undefined)
    lines.push('Burst targets: the BurstTarget resource is not installed (run flux-operator install).');
  else if (targets.length === 0) lines.push('Burst targets: none (MiniClusters can burst in-cluster only).');
  else {
    const rows = [['TARGET', 'PROVIDER', 'CONNECTED', 'REASON']];
    for (const target of targets) {
      const connected = target.status?.conditions?.find((c) => c.type === 'Connected');
      rows.push([
        namespacedName(target),
        target.spec?.provider ?? '?',
        connected?.status ?? 'Unknown',
        connected?.reason ?? '-',
      ]);
    }
    lines.push('Burst targets:', ...table(rows).map((line) => `  ${line}`));
  }
  return `${lines.join('\n')}\n`;
}

export async function burstStatusCommand(options: BurstStatusOptions): Promise<string> {
  let clients: ApiClients;
  try {
    clients = apiClientsFor(loadKubeConfig(options.kubeconfig));
  } catch (error) {
    throw new InputError([`cannot load a kubeconfig: ${(error as Error).message}`]);
  }
  const miniClusters = await list<Listed>(clients, PLURAL, options.namespace);
  let targets: ListedTarget[] | undefined;
  try {
    targets = await list<ListedTarget>(clients, 'bursttargets', options.namespace);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  return formatBurstStatus(miniClusters, targets);
}
