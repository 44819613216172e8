/**
 * `flux-operator quickstart`: the whole path on one machine. Uses the configured cluster, or brings
 * up the local control plane when there is none; installs the CRD, runs the operator in this
 * process, applies a MiniCluster and shows its progress until it is Ready.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MiniClusterStatus } from '../api/index.ts';
import { serverSideApply } from '../controller/apply.ts';
import { kubeClients, loadKubeConfig } from '../controller/kube-clients.ts';
import { readMiniClusterStatus } from '../controller/minicluster-client.ts';
import { Manager } from '../controller/manager.ts';
import { FIELD_MANAGER } from '../deploy/index.ts';
import { up } from '../localcluster/index.ts';
import { createLogger } from '../observability/logger.ts';
import { InputError } from './input-error.ts';
import { installCommand } from './install-command.ts';
import { loadMiniClusters } from './render-command.ts';

export interface QuickstartOptions {
  readonly file: string;
  readonly kubeconfig?: string;
  readonly timeoutMs: number;
  readonly say?: (line: string) => void;
}

/** The kubeconfig the user has configured, if any (flag, $KUBECONFIG, ~/.kube/config). */
export function configuredKubeconfig(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (flag !== undefined) return flag;
  const fromEnv = env.KUBECONFIG?.split(':').find((path) => path !== '' && existsSync(path));
  if (fromEnv) return fromEnv;
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home) ? home : undefined;
}

function progressLine(status: MiniClusterStatus, size: number): string {
  const ready = status.conditions?.find((condition) => condition.type === 'Ready');
  const state = ready ? `${ready.reason}: ${ready.message}` : 'waiting for the operator';
  return `pods running ${status.readyPods ?? 0}/${size} | ${status.summary ?? 'Pending'} | ${state}`;
}

export async function quickstart(options: QuickstartOptions): Promise<number> {
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const [miniCluster] = await loadMiniClusters([options.file]);
  if (!miniCluster) throw new InputError([`${options.file}: no MiniCluster found`]);
  const name = miniCluster.metadata.name;
  const namespace = miniCluster.metadata.namespace ?? 'default';

  let kubeconfig = configuredKubeconfig(options.kubeconfig);
  if (kubeconfig) say(`Using the cluster of ${kubeconfig}`);
  else {
    say(
      'No cluster configured: starting the local control plane (the first run builds it from Go modules, ~20 minutes).',
    );
    kubeconfig = (await up({ progress: (line) => say(`  ${line}`) })).kubeconfig;
  }

  say('Installing the MiniCluster CRD and RBAC:');
  await installCommand({ kubeconfig, log: (line) => say(`  ${line}`) });

  const clients = kubeClients(loadKubeConfig(kubeconfig));
  const manager = new Manager({
    clients,
    log: createLogger({ level: 'warn', format: 'pretty' }),
    namespaces: [namespace],
    concurrency: 4,
  });
  await manager.start();
  try {
    say(`Applying MiniCluster ${namespace}/${name} (size ${miniCluster.spec.size}) from ${options.file}`);
    const { metadata, spec, apiVersion, kind } = miniCluster;
    await serverSideApply(
      clients.objects,
      { apiVersion, kind, metadata: { name: metadata.name, namespace }, spec },
      FIELD_MANAGER,
    );
    const deadline = Date.now() + options.timeoutMs;
    let last = '';
    for (;;) {
      const status = await readMiniClusterStatus(clients, namespace, name);
      const line = status ? progressLine(status, miniCluster.spec.size) : 'waiting for the MiniCluster';
      if (line !== last) say(`  ${line}`);
      last = line;
      if (status?.summary === 'Ready' || status?.summary === 'Succeeded') {
        say(`MiniCluster ${namespace}/${name} is ${status.summary}. Look around with:`);
        say(`  kubectl --kubeconfig ${kubeconfig} get mc,jobs,pods,svc -n ${namespace}`);
        say('Stop the local control plane with: npm run cluster:down');
        return 0;
      }
      if (status?.summary === 'Failed') {
        say(`MiniCluster ${namespace}/${name} failed.`);
        return 1;
      }
      if (Date.now() > deadline) {
        say(
          `MiniCluster ${namespace}/${name} was not Ready after ${Math.round(options.timeoutMs / 1000)} s.`,
        );
        return 1;
      }
      await sleep(250);
    }
  } finally {
    await manager.stop();
  }
}
