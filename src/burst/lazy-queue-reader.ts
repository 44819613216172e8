/**
 * The exec queue reader, loaded on the first read: it runs over the official client's WebSocket exec,
 * whose import is most of the operator's memory (docs/performance.md), and only MiniClusters with
 * bursting read their queue.
 */
import type { ClusterAccess } from '../kube/cluster-access.ts';
import type { ExecFluxQueueReaderOptions } from './flux-queue-exec.ts';
import type { FluxQueueReader, QueueActions, QueueSnapshot } from './queue.ts';

export function lazyExecQueueReader(
  access: ClusterAccess,
  options: Omit<ExecFluxQueueReaderOptions, 'kubeConfig'>,
): FluxQueueReader {
  return {
    async snapshot(actions?: QueueActions): Promise<QueueSnapshot> {
      const [{ ExecFluxQueueReader }, kubeConfig] = await Promise.all([
        import('./flux-queue-exec.ts'),
        access.clientConfig(),
      ]);
      return new ExecFluxQueueReader({ ...options, kubeConfig }).snapshot(actions);
    },
  };
}
