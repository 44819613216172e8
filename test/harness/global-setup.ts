// node --test --test-global-setup=test/harness/global-setup.ts: brings the default local cluster up once
// for the whole run, with its real node (real Flux runs there: test/e2e), building what it needs on first
// use, unless it is already up, and stops it at the end only if it started it here.
// FLUX_OPERATOR_KEEP_CLUSTER=1 keeps it running for the next run.
import { down, status, up } from '../../workbench/src/localcluster/index.ts';
import { runHackScript } from '../../workbench/src/tooling/hack-script.ts';
import { ensureOperatorImage } from '../../workbench/src/images/index.ts';
import { stateDir } from '../../workbench/src/localcluster/index.ts';
import { loadIntoRealNode, realNodeUnavailable } from '../../workbench/src/localcluster/real-node/node.ts';
import { kubeconfigPath } from '../../workbench/src/localcluster/paths.ts';
import { ensureKueueBuilt } from '../../workbench/src/localcluster/kueue/build.ts';
import { stopConversionWebhook } from './conversion-webhook.ts';

let startedHere = false;
/** Tests of bursting to another cluster bring up this one on demand; the run stops it if it did. */
const SECOND_CLUSTER = 'second';
let secondRunningBefore = false;

export async function globalSetup(): Promise<void> {
  // The unit tests check generated scripts with shellcheck: installed here (as root), or one clear line.
  await runHackScript('ensure-packages.sh', ['the tests', 'shellcheck']);
  // One clear line at once, rather than every e2e scenario failing later.
  const unavailable = realNodeUnavailable();
  if (unavailable) throw new Error(`${unavailable}: the e2e scenarios (test/e2e) run real Flux on it`);
  const before = status();
  secondRunningBefore = status({ name: SECOND_CLUSTER }).running;
  const t0 = Date.now();
  const res = await up({ realNode: true });
  startedHere = res.started;
  // The operator as users install it runs from its own image (test/e2e/scenarios/installed-operator.ts).
  const image = await ensureOperatorImage();
  await loadIntoRealNode(stateDir(), [image.archive], {
    progress: (line) => process.stderr.write(`[global-setup] ${line}\n`),
  });
  // Started here, before the tests load the machine, rather than on demand by the bursting tests.
  await up({ name: SECOND_CLUSTER });
  // Kueue's build (minutes on 2 cores, once per version) here too, not beside the tests it would slow:
  // test/integration/kueue.test.ts starts it on a cluster of its own.
  await ensureKueueBuilt((line) => process.stderr.write(`[global-setup] ${line}\n`));
  process.stderr.write(
    `[global-setup] local cluster ${before.running ? 'reused' : 'started'} in ` +
      `${((Date.now() - t0) / 1000).toFixed(1)} s; KUBECONFIG=${res.kubeconfig}\n`,
  );
}

export async function globalTeardown(): Promise<void> {
  if (
    process.env.FLUX_OPERATOR_KEEP_CLUSTER !== '1' &&
    !secondRunningBefore &&
    status({ name: SECOND_CLUSTER }).exists
  ) {
    stopConversionWebhook(kubeconfigPath(SECOND_CLUSTER));
    await down({ name: SECOND_CLUSTER });
  }
  if (!startedHere) return;
  if (process.env.FLUX_OPERATOR_KEEP_CLUSTER === '1') {
    process.stderr.write(
      '[global-teardown] FLUX_OPERATOR_KEEP_CLUSTER=1: leaving the local cluster running\n',
    );
    return;
  }
  // The tests' shared conversion webhook goes with its cluster (test/harness/conversion-webhook.ts).
  stopConversionWebhook(kubeconfigPath('default'));
  await down();
}
