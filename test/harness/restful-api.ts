// What the RESTful e2e cases share: waiting for a MiniCluster's RESTful server to be up.
import { RestfulApiError, type RestfulClient } from '../../src/cli/restful-client.ts';
import { waitFor } from './cluster.ts';

/**
 * The server comes up after the lead broker: waits until it answers with `count` nodes (not yet
 * answering, or refusing as anything but a 401, counts as "not yet"); resolves with the node names.
 */
export async function apiUpWithNodes(api: RestfulClient, count: number): Promise<string[]> {
  return waitFor(
    async () => {
      const up = await api.nodes().catch((error: unknown) => {
        if (error instanceof RestfulApiError && error.status !== 401) return undefined;
        throw error;
      });
      return up?.length === count ? up : undefined;
    },
    { what: `the API up with ${count} nodes`, timeoutMs: 120_000 },
  );
}
