/**
 * The start that the benches on the real node (`--view`, `--mpi`) share: their options parsed (a bad
 * one prints the usage and sets exit code 2), the local cluster with its real node up, the CRDs
 * installed, and this tree's Flux view pinned on the node under a tag of the run's own (view-image.ts).
 */
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { REQUEST_TIMEOUT_MS } from './view-sample.ts';
import { up } from '../../workbench/src/localcluster/index.ts';
import type { Progress } from '../../workbench/src/tooling/hack-script.ts';
import { installCrd } from '../harness/operator.ts';
import { pinViewImage, type PinnedViewImage } from './view-image.ts';
import { within } from './view-sample.ts';

export interface RealNodeBenchStart<Options> {
  options: Options;
  kubeconfig: string;
  clients: ApiClients;
  pinned: PinnedViewImage;
}

/** Undefined when the options are refused (the usage is printed, the exit code set). */
export async function startRealNodeBench<Options>(
  argv: readonly string[],
  parse: (argv: readonly string[]) => Options,
  usage: string,
  progress: Progress,
): Promise<RealNodeBenchStart<Options> | undefined> {
  let options: Options;
  try {
    options = parse(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: ${usage}\n`);
    process.exitCode = 2;
    return undefined;
  }
  const { kubeconfig } = await up({ realNode: true, progress });
  await within(60_000, 'installing the CRDs', installCrd());
  // Every request bounded: a request silent this long fails rather than hold a sample forever.
  const clients = apiClientsFor(loadKubeConfig(kubeconfig), { requestIdleTimeoutMs: REQUEST_TIMEOUT_MS });
  const pinned = await pinViewImage(progress);
  return { options, kubeconfig, clients, pinned };
}
