/**
 * `flux-operator burst plan`: what the burst planner would do for a MiniCluster and a queue
 * snapshot (a dry run: no burst cluster exists yet, nothing is created).
 */
import { readFile } from 'node:fs/promises';
import { planBursts, type BurstPlan, type BurstSlot } from '../burst/planner.ts';
import { parseBurstPolicy, policyOfSpec, targetsByCost, type BurstPolicy } from '../burst/policy.ts';
import { parseQueueSnapshot } from '../burst/queue-file.ts';
import type { QueueSnapshot } from '../burst/queue.ts';
import { InputError } from './input-error.ts';
import { loadMiniClusters } from './render-command.ts';

export interface BurstPlanCommandOptions {
  /** The MiniCluster manifest (`-f`); exactly one MiniCluster. */
  readonly file: string;
  /** The queue snapshot JSON (`--queue`). */
  readonly queueFile: string;
  /** A burst policy JSON (`--policy`); unset: the MiniCluster's spec.flux.bursting.policy, or the default. */
  readonly policyFile?: string;
  /** `--output`: text (default) or json. */
  readonly format: 'text' | 'json';
  /** Planning time when the queue file has no takenAt; default: now. */
  readonly now?: Date;
}

async function readJson(flag: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError([
      `${flag} ${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    ]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError([`${flag} ${file}: not JSON (${(error as Error).message})`]);
  }
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

interface PlanContext {
  readonly name: string;
  readonly localSize: number;
  readonly slots: readonly BurstSlot[];
  readonly queue: QueueSnapshot;
  readonly queueFile: string;
  readonly policy: BurstPolicy;
}

/** The plan as text: a summary, one table row per action, then its message; then the jobs. */
export function formatPlanText(context: PlanContext, plan: BurstPlan): string {
  const { queue, policy } = context;
  const burstable = queue.jobs.filter((job) => job.burstable);
  const count = (state: string) => burstable.filter((job) => job.state === state).length;
  const slots = context.slots.map((slot) => `${slot.name} (${slot.size})`).join(', ') || 'none';
  const targets =
    targetsByCost(policy.targets)
      .map(
        (target) =>
          `${target.name}${target.costPerNodeHour === undefined ? '' : ` $${target.costPerNodeHour}/node-hour`}${target.maxNodes === undefined ? '' : ` max ${target.maxNodes}`}`,
      )
      .join(', ') || 'none';
  const lines = [
    `MiniCluster ${context.name}: ${context.localSize} local brokers; burst slots ${slots}`,
    `Queue ${context.queueFile} at ${queue.takenAt.toISOString()}: ${queue.nodes.up} nodes up, ${queue.nodes.free} free; burstable jobs: ${count('SCHED')} waiting, ${count('RUN')} running`,
    `Policy: maxBurstNodes ${policy.maxBurstNodes}, idleSeconds ${policy.idleSeconds}, targets ${targets}`,
    `Capacity: ${plan.capacity.local} local + ${plan.capacity.burst} burst up or on their way; ${plan.capacity.planned} burst nodes planned`,
    '',
  ];
  if (plan.actions.length === 0) lines.push('Actions: none');
  else {
    lines.push('Actions:');
    const rows = plan.actions.map((action) => [
      action.kind,
      action.slot,
      action.target,
      action.kind === 'create'
        ? String(action.size)
        : action.kind === 'scale'
          ? `${action.from}->${action.size}`
          : '-',
      action.reason,
    ]);
    const [header, ...body] = table([['ACTION', 'SLOT', 'TARGET', 'SIZE', 'REASON'], ...rows]);
    lines.push(`  ${header}`);
    body.forEach((row, index) => lines.push(`  ${row}`, `      ${plan.actions[index]?.message}`));
  }
  for (const [title, verdicts] of [
    ['Jobs that can never run', plan.unsatisfiable],
    ['Jobs waiting for free burst capacity', plan.waiting],
  ] as const) {
    if (verdicts.length === 0) continue;
    lines.push('', `${title}:`);
    for (const verdict of verdicts)
      lines.push(`  ${verdict.jobId}  ${verdict.reason}`, `      ${verdict.message}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function burstPlanCommand(options: BurstPlanCommandOptions): Promise<string> {
  const miniClusters = await loadMiniClusters([options.file]);
  const [miniCluster] = miniClusters;
  if (miniClusters.length !== 1 || miniCluster === undefined) {
    throw new InputError([`-f ${options.file}: holds ${miniClusters.length} MiniClusters; give exactly one`]);
  }
  const bursting = miniCluster.spec.flux.bursting;
  if (bursting?.hostlist !== undefined) {
    throw new InputError([
      `-f ${options.file}: spec.flux.bursting.hostlist replaces the burst slots; the planner needs spec.flux.bursting.clusters`,
    ]);
  }
  if (bursting?.leadBroker !== undefined) {
    throw new InputError([
      `-f ${options.file}: spec.flux.bursting.leadBroker is set: this MiniCluster is a burst cluster; plan on the lead MiniCluster`,
    ]);
  }
  const slots = (bursting?.clusters ?? []).map((cluster) => ({ name: cluster.name, size: cluster.size }));

  const problems: string[] = [];
  const now = options.now ?? new Date();
  const queueResult = parseQueueSnapshot(
    await readJson('--queue', options.queueFile),
    options.queueFile,
    now,
  );
  if (!queueResult.ok) problems.push(...queueResult.problems);
  let policy = policyOfSpec(bursting?.policy);
  if (options.policyFile !== undefined) {
    const policyResult = parseBurstPolicy(await readJson('--policy', options.policyFile), options.policyFile);
    if (policyResult.ok) policy = policyResult.value;
    else problems.push(...policyResult.problems);
  }
  if (!queueResult.ok || problems.length > 0) throw new InputError(problems);
  const queue = queueResult.value;

  const localSize = miniCluster.spec.size;
  const plan = planBursts({ queue, localSize, slots, clusters: [], policy, now: queue.takenAt });
  const { namespace, name } = miniCluster.metadata;
  const qualified = namespace === undefined ? name : `${namespace}/${name}`;
  if (options.format === 'json') {
    return `${JSON.stringify({ miniCluster: qualified, localSize, slots, policy, plan }, null, 2)}\n`;
  }
  return formatPlanText(
    { name: qualified, localSize, slots, queue, queueFile: options.queueFile, policy },
    plan,
  );
}
