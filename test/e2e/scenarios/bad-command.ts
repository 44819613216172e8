// Bad input (issue 30): a command whose program is not in the image. A v1alpha2 MiniCluster from the
// Flux view on a plain image (bash and coreutils only) runs `lmpx -in in.lj`: Flux's job cannot start
// `lmpx`, the lead broker exits 127, and the MiniCluster ends Failed naming the program and the status
// (the entrypoint's termination message, src/flux/scripts/entrypoint.sh report_missing_program), not
// only in the lead's log. Every call to the cluster has a timeout.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { MiniClusterStatus } from '../../../src/api/index.ts';
import { API_VERSION } from '../../../src/api/index.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { waitFor, within as call } from '../../harness/cluster.ts';
import { applyMiniCluster, conditionOf, podsOf, readStatus } from '../../harness/operator.ts';
import { realMiniCluster, scenario } from '../../harness/real-node.ts';

const NAME = 'bad-command';
const PLAIN = 'localhost/plain:bookworm';

/** The MiniCluster's status once it has an outcome, Failed or (wrongly, here) Succeeded. */
async function finished(clients: ApiClients, namespace: string): Promise<MiniClusterStatus> {
  return waitFor(
    async () => {
      const status = await call('reading the status', readStatus(clients, namespace, NAME));
      const done = ['Succeeded', 'Failed'].some((type) => conditionOf(status, type)?.status === 'True');
      return done ? status : false;
    },
    { what: `${namespace}/${NAME} to succeed or fail`, timeoutMs: 180_000, intervalMs: 1_000 },
  );
}

export function badCommandScenarios(): void {
  it('bad input: a command whose program is not in the image fails, naming the program and the exit status', async (t) => {
    const { namespace, clients } = await scenario(t, 'bad-command');
    const object = realMiniCluster(namespace, NAME, { size: 2 }, { image: PLAIN, command: 'lmpx -in in.lj' });
    // v1alpha2 with no flux.container: Flux from the view, in an image without Flux.
    await call('applying the MiniCluster', applyMiniCluster(clients, { ...object, apiVersion: API_VERSION }));
    const status = await finished(clients, namespace);
    const failed = conditionOf(status, 'Failed');
    assert.equal(status.summary, 'Failed', JSON.stringify(status.conditions));
    assert.equal(failed?.reason, 'ProgramNotFound', JSON.stringify(status.conditions));
    assert.match(
      failed?.message ?? '',
      /^the lead broker exited with status 127 \(pod bad-command-0-\w+\): its command's program "lmpx" was not found in the image$/,
    );
    // The lead pod's own termination message says it as the entrypoint wrote it, and nothing else.
    const pods = await call('listing the pods', podsOf(clients, namespace, NAME));
    const lead = pods.find((pod) => pod.metadata?.name?.startsWith(`${NAME}-0-`));
    const terminated = lead?.status?.containerStatuses
      ?.map((container) => container.state?.terminated)
      .find((state) => state?.exitCode === 127);
    assert.equal(
      terminated?.message?.trimEnd(),
      `the command's program "lmpx" was not found in the image (exit status 127)`,
      JSON.stringify(lead?.status?.containerStatuses),
    );
  });
}
