// Fields of the Go operator's v1alpha1 API that this operator keeps, seen working on the real node:
// what a Flux job sees of them.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { applyMiniCluster, waitForCondition } from '../../harness/operator.ts';
import { leadLog, realMiniCluster, scenario } from '../../harness/real-node.ts';

export function v1alpha1FieldScenarios(): void {
  it('container secrets: the job Flux runs sees a variable whose value is a key of a Secret the user made', async (t) => {
    const { namespace, clients } = await scenario(t, 'secrets');
    // Made before the MiniCluster, as a user would; the value never appears in the MiniCluster.
    await clients.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'api-credentials', namespace },
        stringData: { token: 's3cr3t-from-a-secret' },
      },
    });
    await applyMiniCluster(
      clients,
      realMiniCluster(
        namespace,
        'secrets',
        { size: 2, logging: { quiet: true } },
        {
          command: 'printenv API_TOKEN',
          container: { secrets: { API_TOKEN: { name: 'api-credentials', key: 'token' } } },
        },
      ),
    );
    const status = await waitForCondition(clients, namespace, 'secrets', 'Succeeded', 'True', 180_000);
    assert.equal(status.summary, 'Succeeded');
    assert.equal(await leadLog(clients, namespace, 'secrets'), 's3cr3t-from-a-secret\n');
  });
}
