// A newcomer's first minutes, on a local cluster of its own (these tests leave the CRD converting
// nothing, then point it at operators they stop: the shared clusters' tests must not see that).
// `flux-operator install` without the Deployment, then `flux-operator run`, each as the CLI runs them;
// a v1alpha1 manifest applied the moment `run` says it is ready must be accepted. Every call has a
// timeout (the processes', the harness's waitFor, the API calls').
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { CRD_NAME, GROUP, PLURAL, VERSION_V1ALPHA1 } from '../../src/api/index.ts';
import { runOperator } from '../../src/cli/run-command.ts';
import { conversionLine } from '../../src/controllers/conversion/install-conversion.ts';
import { loadKubeConfig, apiClientsFor } from '../../src/kube/clients.ts';
import type { Transport } from '../../src/kube/transport.ts';
import { binDir, down, readVersions, up } from '../../workbench/src/localcluster/index.ts';
import { waitFor } from '../harness/cluster.ts';
import { miniClusterObject } from '../harness/operator.ts';
import { spawnOperator, type OperatorProcess } from '../harness/operator-process.ts';

const run = promisify(execFile);
const CLUSTER = 'first-apply';
const NAMESPACE = 'newcomer';
const V1ALPHA2 = 'v1alpha2';
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const CALL_TIMEOUT_MS = 15_000;
const progress = (line: string) => process.stderr.write(`[${CLUSTER}] ${line}\n`);

let kubeconfig = '';
const scratch = mkdtempSync(path.join(tmpdir(), 'first-apply-'));
/** Every call below through it, each with CALL_TIMEOUT_MS. */
let api: Transport;
const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`;
const collection = (version: string) => `/apis/${GROUP}/${version}/namespaces/${NAMESPACE}/${PLURAL}`;

interface LiveCrd {
  spec: { conversion: { strategy: string }; versions: { name: string; served: boolean }[] };
}

function liveCrd(): Promise<LiveCrd> {
  return api.request<LiveCrd>('GET', CRD_PATH, { timeoutMs: CALL_TIMEOUT_MS });
}

/** `flux-operator install` (CRDs and RBAC only), as a user runs it: its output lines. */
async function install(): Promise<string[]> {
  const { stdout } = await run(process.execPath, [MAIN, 'install', '--kubeconfig', kubeconfig], {
    encoding: 'utf8',
    timeout: 90_000,
  });
  return stdout.split('\n').filter((line) => line !== '');
}

/** Creates a MiniCluster of `version`: 201, or the HTTP code and message of the refusal. */
async function create(version: string, name: string): Promise<{ code: number; message: string }> {
  const body = { ...miniClusterObject(NAMESPACE, name, { size: 1 }), apiVersion: `${GROUP}/${version}` };
  try {
    await api.request('POST', collection(version), { body, timeoutMs: CALL_TIMEOUT_MS });
    return { code: 201, message: 'created' };
  } catch (error) {
    const { code, message } = error as { code?: number; message: string };
    return { code: code ?? 0, message };
  }
}

/**
 * `kubectl apply -f` of a v1alpha1 manifest, as the newcomer does (discovery cached in a directory of
 * this run's own, as kubectl caches it): its exit code and output.
 */
async function kubectlApply(name: string): Promise<{ code: number; output: string }> {
  const file = path.join(scratch, `${name}.yaml`);
  writeFileSync(file, stringify(miniClusterObject(NAMESPACE, name, { size: 1 })));
  const kubectl = `${binDir(readVersions())}/kubectl`;
  const args = [
    '--kubeconfig',
    kubeconfig,
    '--cache-dir',
    path.join(scratch, 'cache'),
    '--request-timeout=15s',
  ];
  try {
    const { stdout, stderr } = await run(kubectl, [...args, 'apply', '-f', file], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { code: 0, output: `${stdout}${stderr}`.trim() };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof code === 'number' ? code : -1, output: `${stdout ?? ''}${stderr ?? ''}`.trim() };
  }
}

interface Started {
  readonly process: OperatorProcess;
  /** From the spawn to the ready line, as the newcomer waits (read every 10 ms). */
  readonly readyAfterMs: number;
  readonly line: Record<string, unknown>;
  readonly healthPort: number;
  stop(): Promise<number | string>;
}

/** `flux-operator run` with its own webhook, as a child process, resolved once it says it is ready. */
async function startRun(): Promise<Started> {
  const started = performance.now();
  const operator = await spawnOperator(NAMESPACE, [], { kubeconfig, ownWebhook: true });
  const stop = async () => {
    // A bound for a hang: on a loaded CI run of 2 cores a clean stop took over 20 s.
    const timer = setTimeout(() => operator.child.kill('SIGKILL'), 90_000);
    try {
      return await operator.kill('SIGTERM');
    } finally {
      clearTimeout(timer);
    }
  };
  const parsed = (message: string) => {
    const found = operator.lines.find((line) => line.includes(`"msg":"${message}"`));
    return found === undefined ? undefined : (JSON.parse(found) as Record<string, unknown>);
  };
  let line: Record<string, unknown> | true;
  try {
    line = await waitFor(() => parsed('flux-operator ready') ?? operator.child.exitCode !== null, {
      what: "`flux-operator run`'s ready line",
      timeoutMs: 90_000,
      intervalMs: 10,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const readyAfterMs = performance.now() - started;
  if (line === true) throw new Error(`run exited:\n${operator.lines.join('\n')}`);
  return {
    process: operator,
    readyAfterMs,
    line,
    healthPort: Number(parsed('flux-operator starting')?.['healthPort']),
    stop,
  };
}

describe(
  'a newcomer applies a v1alpha1 MiniCluster right after `flux-operator run` says it is ready',
  { concurrency: 1 },
  () => {
    before(async () => {
      const cluster = await up({ name: CLUSTER, progress });
      kubeconfig = cluster.kubeconfig;
      api = apiClientsFor(loadKubeConfig(kubeconfig)).transport;
      await api
        .request('POST', '/api/v1/namespaces', {
          body: { metadata: { name: NAMESPACE } },
          timeoutMs: CALL_TIMEOUT_MS,
        })
        .catch(() => undefined);
    });

    after(async () => {
      await down({ name: CLUSTER, progress });
    });

    it('install without the Deployment leaves the CRD converting nothing, serving v1alpha2 only, and says so', async () => {
      const lines = await install();
      const said = conversionLine({ kind: 'none', served: [V1ALPHA2], unserved: [VERSION_V1ALPHA1] });
      assert.ok(lines.includes(said), lines.join('\n'));
      assert.match(
        said,
        /only v1alpha2 is served; a manifest of "flux-framework\.org\/v1alpha1" is refused \(kubectl: no matches for kind "MiniCluster"/,
      );
      const crd = await liveCrd();
      assert.equal(crd.spec.conversion.strategy, 'None');
      assert.deepEqual(
        crd.spec.versions.map(({ name, served }) => [name, served]),
        [
          [VERSION_V1ALPHA1, false],
          [V1ALPHA2, true],
        ],
      );
      // As the line says: v1alpha2 accepted, v1alpha1 refused as not found (never a 500, never stored
      // unconverted).
      assert.deepEqual(await create(V1ALPHA2, 'second-version'), { code: 201, message: 'created' });
      const refused = await create(VERSION_V1ALPHA1, 'first-version');
      assert.equal(refused.code, 404, refused.message);
      const applied = await kubectlApply('first-version');
      assert.equal(applied.code, 1, applied.output);
      assert.match(
        applied.output,
        /no matches for kind "MiniCluster" in version "flux-framework\.org\/v1alpha1"/,
      );
      // Again: nothing changes.
      const again = await install();
      assert.ok(
        again.includes(`customresourcedefinition.apiextensions.k8s.io/${CRD_NAME} unchanged`),
        again.join('\n'),
      );
      assert.ok(again.includes(said), again.join('\n'));
    });

    it('run is ready only once the API server converts through it, and a v1alpha1 apply at once is accepted', async () => {
      const figures: string[] = [];
      // The first start finds the CRD converting nothing; the next ones find it pointing at the URL of
      // the run stopped before them, which no longer answers.
      for (let round = 1; round <= 3; round++) {
        const operator = await startRun();
        try {
          const applied = await kubectlApply(`newcomer-${round}`);
          assert.deepEqual(
            applied,
            { code: 0, output: `minicluster.${GROUP}/newcomer-${round} created` },
            `round ${round}`,
          );
          const readyz = await fetch(`http://127.0.0.1:${operator.healthPort}/readyz?verbose`, {
            signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
          });
          const checks = await readyz.text();
          assert.equal(readyz.status, 200, checks);
          assert.match(checks, /\[\+\]crd-conversion ok/);
          const asV2 = await api.request<{ apiVersion: string }>(
            'GET',
            `${collection(V1ALPHA2)}/newcomer-${round}`,
            { timeoutMs: CALL_TIMEOUT_MS },
          );
          assert.equal(asV2.apiVersion, `${GROUP}/${V1ALPHA2}`);
          assert.ok(
            operator.process.lines.some((line) =>
              line.includes('the API server converts MiniClusters through this webhook'),
            ),
          );
          figures.push(
            `${(operator.readyAfterMs / 1000).toFixed(2)} s (${String(operator.line['secondsSinceStart'])} s in the process)`,
          );
        } finally {
          assert.equal(await operator.stop(), 0);
        }
      }
      process.stderr.write(`[${CLUSTER}] run's start to its ready line, 3 starts: ${figures.join(', ')}\n`);
    });

    it('install keeps the webhook of a run that converts, and drops one that no longer answers', async () => {
      const operator = await startRun();
      let lines: string[];
      try {
        lines = await install();
        const webhook = String(operator.line['conversionWebhook']);
        assert.match(webhook, /^https:\/\/127\.0\.0\.1:\d+\/convert$/);
        assert.ok(lines.includes(conversionLine({ kind: 'kept', webhook })), lines.join('\n'));
        assert.deepEqual(await create(VERSION_V1ALPHA1, 'while-running'), { code: 201, message: 'created' });
      } finally {
        assert.equal(await operator.stop(), 0);
      }
      // Stopped: the CRD names a URL nothing answers; install turns it back to converting nothing.
      lines = await install();
      assert.ok(
        lines.includes(conversionLine({ kind: 'none', served: [V1ALPHA2], unserved: [VERSION_V1ALPHA1] })),
        lines.join('\n'),
      );
      assert.equal((await liveCrd()).spec.conversion.strategy, 'None');
      assert.equal((await create(VERSION_V1ALPHA1, 'after-run')).code, 404);
      assert.deepEqual(await create(V1ALPHA2, 'after-run'), { code: 201, message: 'created' });
    });

    it('run gives up after its bound, naming what did not answer, when there is no CRD to point', async () => {
      await api.request('DELETE', CRD_PATH, { timeoutMs: CALL_TIMEOUT_MS });
      await waitFor(
        () =>
          liveCrd().then(
            () => false,
            () => true,
          ),
        { what: 'the CRD gone', timeoutMs: 30_000 },
      );
      await assert.rejects(
        runOperator({
          kubeconfig,
          namespaces: [NAMESPACE],
          leaderElect: false,
          metricsAddr: '0',
          healthAddr: '0',
          logLevel: 'error',
          logFormat: 'json',
          concurrency: 1,
          readyTimeoutMs: 3_000,
        }),
        (error: Error) => {
          assert.match(
            error.message,
            new RegExp(
              `^flux-operator is not ready after 3 s: .*crd-conversion: the ${CRD_NAME.replace(/\./g, '\\.')} CRD is not installed: install it \\(flux-operator install\\)`,
            ),
          );
          return true;
        },
      );
    });
  },
);
