// Real Flux, end to end: MiniClusters made by the operator through the API server, their pods on the
// real node running flux-core 0.88 built from source. What Flux does is read from the pods themselves
// (logs, `flux` run through `kubectl exec` as a user would). The scenarios live in ./scenarios; they
// share the one real node, which this file removes last and checks that nothing of it is left.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { listeningSocketsOf, stateDir, up } from '../../workbench/src/localcluster/index.ts';
import { NODE_IP, realNodeLayout } from '../../workbench/src/localcluster/real-node/config.ts';
import { nodeProcesses } from '../../workbench/src/localcluster/real-node/host.ts';
import {
  realNodeDown,
  realNodeFootprint,
  savedHostSettings,
} from '../../workbench/src/localcluster/real-node/node.ts';
import type { SavedHost } from '../../workbench/src/localcluster/real-node/host.ts';
import { cluster } from '../harness/cluster.ts';
import { autoscaleScenarios } from './scenarios/autoscale.ts';
import { badCommandScenarios } from './scenarios/bad-command.ts';
import { burstingScenarios } from './scenarios/bursting.ts';
import { coreScenarios } from './scenarios/core.ts';
import { fluxViewErrorScenarios } from './scenarios/flux-view-errors.ts';
import { fluxViewScenarios } from './scenarios/flux-view.ts';
import { gpuScenarios } from './scenarios/gpus.ts';
import {
  goLammpsScenarios,
  goMemoryViewScenarios,
  goSpackViewScenarios,
  goV1alpha2ExampleScenarios,
} from './scenarios/go-v1alpha2-examples.ts';
import { inClusterScenarios } from './scenarios/in-cluster.ts';
import { kueueScenarios } from './scenarios/kueue.ts';
import { installedOperatorScenarios } from './scenarios/installed-operator.ts';
import { mpiScenarios } from './scenarios/mpi.ts';
import { servicesScenarios } from './scenarios/services.ts';
import { restfulScenarios } from './scenarios/restful.ts';
import { restfulPagesScenarios } from './scenarios/restful-pages.ts';
import { restfulSecurityScenarios } from './scenarios/restful-security.ts';
import { rootSideDoorScenarios } from './scenarios/root-side-doors.ts';
import { v1alpha1ExampleScenarios } from './scenarios/v1alpha1-examples.ts';
import { v1alpha1FieldScenarios } from './scenarios/v1alpha1-fields.ts';

let saved: SavedHost | undefined;
before(async () => {
  // The global setup has brought it up; a run of this file alone brings it up here.
  await up({ realNode: true });
  saved = savedHostSettings(stateDir());
  assert.ok(saved, 'the real node saved the host settings from before it started');
});

describe('real Flux on the real node', { concurrency: 3 }, () => {
  coreScenarios();
  inClusterScenarios();
  installedOperatorScenarios();
  burstingScenarios();
  v1alpha1ExampleScenarios();
  v1alpha1FieldScenarios();
  servicesScenarios();
  restfulScenarios();
  restfulPagesScenarios();
  restfulSecurityScenarios();
  rootSideDoorScenarios();
  fluxViewScenarios();
  fluxViewErrorScenarios();
  goV1alpha2ExampleScenarios();
  goSpackViewScenarios();
  goMemoryViewScenarios();
  goLammpsScenarios();
  autoscaleScenarios();
  mpiScenarios();
  gpuScenarios();
  badCommandScenarios();
  kueueScenarios();
});

it('the real node listens only on loopback and on its own address, never on the machine network', () => {
  const pids = nodeProcesses(realNodeLayout(stateDir())).map((p) => p.pid);
  const sockets = listeningSocketsOf(pids);
  assert.ok(
    sockets.some((socket) => socket.address === NODE_IP && socket.port === 10250),
    'the kubelet listens',
  );
  assert.deepEqual(
    sockets.filter((socket) => socket.address !== '127.0.0.1' && socket.address !== NODE_IP),
    [],
  );
});

// Last, once every scenario is done: removing the real node (what `cluster:down` does first) leaves
// nothing of it on the machine.
it('removing the real node leaves no process, mount, link, rule, cgroup, folder or sysctl behind', async () => {
  assert.ok(saved);
  const problems = await realNodeDown({ stateDir: stateDir(), kubeconfig: (await cluster()).kubeconfig });
  assert.deepEqual(problems, []);
  assert.deepEqual(realNodeFootprint(stateDir(), saved), {
    processes: [],
    mounts: [],
    networkNamespaces: [],
    links: [],
    cgroups: [],
    folders: [],
    nftTables: [],
    iptablesRules: [],
    sysctls: [],
  });
});
