/**
 * The CRD and the validator agree, on the local API server, for each served version (v1alpha1, and
 * the hub v1alpha2): MiniClusters generated over the whole schema (hostile contents, mutations of any field, and the cases mutation testing found) are
 * stored by the server (a dry-run create, with strict field validation as `kubectl apply` does)
 * exactly when the validator accepts them, and the objects rendered from every accepted one pass a
 * server-side dry-run create too. Nothing is stored.
 *
 * FLUX_OPERATOR_PARITY_SAMPLES (default 1200) and FLUX_OPERATOR_PARITY_SEED vary the run.
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import { describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import fc from 'fast-check';
import {
  API_VERSION,
  API_VERSION_V1ALPHA1,
  GROUP,
  PLURAL,
  SCRIPT_MAX_LENGTH,
  VERSION,
  VERSION_V1ALPHA1,
  toV1alpha2,
  validateMiniCluster,
  type DefaultedMiniCluster,
  type Problem,
} from '../../src/api/index.ts';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../src/api/v1alpha1/validate.ts';
import type { ValidationResultV1alpha1 } from '../../src/api/v1alpha1/validate.ts';
import { defaultedToV1alpha2 } from '../../src/api/v1alpha1/convert-defaulted.ts';
import { renderMiniCluster } from '../../src/render/index.ts';
import type { KubeObject } from '../../src/render/index.ts';
import { cluster, withNamespace } from '../harness/cluster.ts';
import { installCrd } from '../harness/operator.ts';
import { CURVE_CERT, fluxContainer, miniCluster } from '../unit/api/fixtures.ts';
import { hostileMiniCluster } from '../unit/api/hostile-arbitraries.ts';
import { validMiniCluster } from '../unit/api/valid-arbitraries.ts';

const SAMPLES = Number(process.env.FLUX_OPERATOR_PARITY_SAMPLES ?? 1200);
const SEED = Number(process.env.FLUX_OPERATOR_PARITY_SEED ?? 20260101);
const CONCURRENCY = 16;
const KEYS = {
  curveCertificate: CURVE_CERT,
  mungeKey: Uint8Array.from({ length: 1024 }, (_, index) => index % 251),
  restfulSeed: Uint8Array.from({ length: 32 }, (_, index) => index),
};

const leadBroker = { address: '203.0.113.7', name: 'lead', size: 2 };

/** What mutation testing found, each on one side of the line. */
const FOUND_CASES: unknown[] = [
  miniCluster({ containers: [fluxContainer({ command: 'echo a\0b' })] }),
  miniCluster({ tasks: 2 ** 53 + 2 }),
  miniCluster(
    {
      size: 63,
      flux: {
        curveCert: CURVE_CERT,
        mungeSecret: 'm',
        bursting: { leadBroker, clusters: [{ name: 'burst-0', size: 4 }] },
      },
    },
    'burst-0',
  ),
  miniCluster({ network: { sharedSelector: { group: 'a' } } }),
  miniCluster({ flux: { bursting: { clusters: [{ name: 'flux-sample' }] } } }),
  miniCluster({ flux: { bursting: { clusters: [{}, { name: 'burst-0' }] } } }, 'burst-1'),
  ...['a b', 'a"b', '$x', 'é'].map((key) =>
    miniCluster({ pod: { tolerations: [{ key, operator: 'Exists' }] } }),
  ),
];

const noCommand = [fluxContainer({ command: undefined })];
const spaceCommand = [fluxContainer({ command: ' \n' })];

/** The RESTful mode's rules, on each side of each line. */
const RESTFUL_CASES: unknown[] = [
  miniCluster({ containers: noCommand }),
  miniCluster({ containers: spaceCommand, users: [{ name: 'peenut' }] }),
  miniCluster({ fluxRestful: {} }),
  miniCluster({ users: [{ name: 'peenut' }] }),
  miniCluster({ users: [] }),
  miniCluster({ containers: noCommand, interactive: true, users: [{ name: 'peenut' }] }),
  miniCluster({ containers: noCommand, interactive: true, fluxRestful: {}, users: [{ name: 'peenut' }] }),
  miniCluster({ containers: noCommand, fluxRestful: { port: 8050 } }),
  miniCluster({ containers: noCommand, fluxRestful: { port: 8051, username: 'a:b' } }),
  miniCluster({ containers: noCommand, users: [{ name: 'flux' }] }),
  miniCluster({ containers: noCommand, fluxRestful: { username: 'me' }, users: [{ name: 'flux' }] }),
  miniCluster({ containers: noCommand, fluxRestful: { username: 'me' }, users: [{ name: 'me' }] }),
  miniCluster({ containers: noCommand, users: [{ name: 'a' }, { name: 'a' }] }),
  miniCluster({ containers: noCommand, users: [{ name: 'a', password: 'has space' }] }),
  miniCluster({ containers: noCommand, fluxRestful: {}, flux: { bootServer: 'first', bootServerSize: 2 } }),
  miniCluster({
    containers: noCommand,
    users: [{ name: 'a' }],
    flux: { bootServer: 'first', bootServerSize: 2 },
  }),
  miniCluster({
    containers: noCommand,
    fluxRestful: { branch: 'main', port: 80, username: 'u', token: 't', secretKey: 'k' },
    users: [{ name: 'b', password: 'p' }],
  }),
  // The API's jobs never as root; a command's may be.
  ...[{ runFluxAsRoot: true }, {}].flatMap((commands) =>
    [{}, { uid: 0 }, { name: 'root' }, { name: 'jobs', uid: 2000 }].flatMap((fluxUser) => [
      miniCluster({ containers: [fluxContainer({ command: undefined, commands, fluxUser })] }),
      miniCluster({ containers: [fluxContainer({ commands, fluxUser })] }),
      miniCluster({
        containers: [fluxContainer({ command: undefined, commands, fluxUser })],
        interactive: true,
      }),
    ]),
  ),
  // Tokens, passwords and keys: 32 characters at least, on both sides.
  ...[31, 32].flatMap((length) => [
    miniCluster({ containers: noCommand, fluxRestful: { token: 't'.repeat(length) } }),
    miniCluster({ containers: noCommand, fluxRestful: { secretKey: 'k'.repeat(length) } }),
    miniCluster({
      containers: noCommand,
      users: [{ name: 'b', password: 'p'.repeat(length), administrator: true }],
    }),
  ]),
];

/** Bounds both sides must count alike: characters, bytes, whole units. */
const EDGE_CASES: unknown[] = [
  ...['', 'a'].map((extra) =>
    miniCluster({ containers: [fluxContainer({ command: `${'😀'.repeat(SCRIPT_MAX_LENGTH)}${extra}` })] }),
  ),
  ...['x', 'é'].map((last) =>
    miniCluster({
      pod: {
        annotations: Object.fromEntries(
          ['a', 'b', 'c', 'd'].map((key) => [key, `${'x'.repeat(65534)}${key === 'd' ? last : 'x'}`]),
        ),
      },
    }),
  ),
  ...['1', '1000m', '1k'].map((gpus) =>
    miniCluster({ containers: [fluxContainer({ resources: { limits: { 'example.com/gpu': gpus } } })] }),
  ),
  ...['2048Ki', '3Mi', '2.0Mi'].map((pages) =>
    miniCluster({
      containers: [fluxContainer({ resources: { limits: { 'hugepages-2Mi': pages, memory: '1Gi' } } })],
    }),
  ),
];

/** spec.volumes on each side of every rule: entries, references to them, sources under their names. */
const mounting = (volumes: Record<string, unknown>) => [fluxContainer({ volumes } as never)];
const STORAGE_CASES: unknown[] = [
  miniCluster({
    volumes: { data: { path: '/srv/data' } },
    containers: mounting({ data: { path: '/data' } }),
  }),
  miniCluster({
    volumes: { data: { path: '/srv/data' } },
    containers: mounting({ other: { path: '/data' } }),
  }),
  miniCluster({ containers: mounting({ data: { path: '/data', readOnly: true } }) }),
  miniCluster({
    volumes: { data: { path: '/srv/data' } },
    containers: mounting({ data: { path: '/data', emptyDir: true } }),
  }),
  miniCluster({
    volumes: { data: { path: '/srv/data' } },
    containers: [fluxContainer({ existingVolumes: { data: { path: '/data', claimName: 'c' } } })],
  }),
  miniCluster({
    volumes: { data: { path: '/srv/data' } },
    containers: [fluxContainer({ existingVolumes: { other: { path: '/data' } } })],
  }),
  ...[
    {},
    { storageClass: 'hostpath' },
    { storageClass: 'standard' },
    { storageClass: 'csi-gcs', driver: 'gcs.csi.ofek.dev' },
    { path: '/srv/data', driver: 'gcs.csi.ofek.dev' },
    {
      storageClass: 'csi-gcs',
      driver: 'gcs.csi.ofek.dev',
      secret: 's',
      volumeHandle: 'b/p',
      attributes: { a: 'b' },
    },
    { storageClass: 'standard', secret: 's' },
    { storageClass: 'standard', attributes: {} },
    { storageClass: 'csi-gcs', driver: 'gcs.csi.ofek.dev', secret: 's', secretNamespace: 'default' },
    { path: '/srv/data', capacity: '0' },
    { path: '/srv/data', capacity: 0 },
    { path: '/srv/data', capacity: '1m' },
    { path: '/srv/data', capacity: '-1Gi' },
    { path: '/srv/data', delete: false, labels: { type: 'local' }, annotations: { 'a/b': 'c' } },
    { path: '/srv/data', labels: { 'app.kubernetes.io/name': 'x' } },
    { path: '/srv/data', claimAnnotations: { 'a b': 'x' } },
  ].map((entry) =>
    miniCluster({ volumes: { data: entry } as never, containers: mounting({ data: { path: '/data' } }) }),
  ),
  miniCluster({ volumes: { 'flux-operator-x': { path: '/srv/x' } } }),
  miniCluster({ volumes: { Data: { path: '/srv/x' } } }),
];

interface Answer {
  status: number;
  message: string;
}

/** POSTs `body` with server-side dry run and strict field validation (unknown fields refused). */
async function dryRunCreate(
  kc: KubeConfig,
  agent: https.Agent,
  path: string,
  body: unknown,
): Promise<Answer> {
  const server = kc.getCurrentCluster()?.server;
  assert.ok(server, 'a current cluster');
  const url = new URL(`${path}?dryRun=All&fieldValidation=Strict`, server);
  const options: https.RequestOptions = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    agent,
  };
  await kc.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const request = https.request(url, options, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const parsed = text === '' ? {} : (JSON.parse(text) as { message?: string });
        resolve({ status: response.statusCode ?? 0, message: parsed.message ?? '' });
      });
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

const COLLECTIONS: Record<string, string> = {
  ConfigMap: 'configmaps',
  Secret: 'secrets',
  Service: 'services',
  Job: 'jobs',
  Deployment: 'deployments',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  PersistentVolume: 'persistentvolumes',
};

function collectionPath(object: KubeObject, namespace: string): string {
  const base = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
  const plural = COLLECTIONS[object.kind];
  assert.ok(plural, `a collection for ${object.kind}`);
  // PersistentVolumes are cluster-wide.
  return object.kind === 'PersistentVolume'
    ? `${base}/${plural}`
    : `${base}/namespaces/${namespace}/${plural}`;
}

/**
 * The one rule CEL cannot mirror: expanding a burst hostlist (ranges in order, one padding, each
 * host once, at least size hosts). The CRD checks its syntax; the validator alone checks the rest.
 */
function refusedOnlyForTheHostlist(result: Validated): boolean {
  return (
    !result.ok &&
    result.problems.every(
      (problem) =>
        problem.path === 'spec.flux.bursting.hostlist' &&
        /^(is not a hostlist: |lists .* twice|lists \d+ hosts, fewer than)/.test(problem.message),
    )
  );
}

function shown(sample: unknown): string {
  const text = JSON.stringify(sample);
  return text.length > 1500 ? `${text.slice(0, 1500)}...` : text;
}

/** Runs `work` on every item, `CONCURRENCY` at a time. */
async function forEachConcurrently<T>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let index = next++; index < items.length; index = next++) await work(items[index] as T, index);
    }),
  );
}

/** A sample's validation in its version, with the hub's model of it when accepted (what renders). */
type Validated = { ok: true; value: DefaultedMiniCluster } | { ok: false; problems: Problem[] };

/** What the parity run needs of one served version. */
interface ServedVersion {
  readonly version: string;
  readonly apiVersion: string;
  readonly samples: () => unknown[];
  readonly validate: (sample: unknown) => Validated;
}

const V1ALPHA1_CASES: unknown[] = [...FOUND_CASES, ...EDGE_CASES, ...RESTFUL_CASES, ...STORAGE_CASES];

/** A v1alpha1 sample as the hub has it (what the conversion webhook stores), if it converts. */
function inTheHub(sample: unknown): unknown[] {
  try {
    return [toV1alpha2(sample)];
  } catch {
    return [];
  }
}

const SPOKE: ServedVersion = {
  version: VERSION_V1ALPHA1,
  apiVersion: API_VERSION_V1ALPHA1,
  samples: () => [...V1ALPHA1_CASES, ...fc.sample(hostileMiniCluster, { numRuns: SAMPLES, seed: SEED })],
  validate: (sample) => {
    const result: ValidationResultV1alpha1 = validateMiniClusterV1alpha1(sample);
    return result.ok ? { ok: true, value: defaultedToV1alpha2(result.value) } : result;
  },
};

/** The hub: the same cases and hostile samples in their hub form, and valid hub MiniClusters with its own fields. */
const HUB: ServedVersion = {
  version: VERSION,
  apiVersion: API_VERSION,
  samples: () => [
    ...V1ALPHA1_CASES.flatMap(inTheHub),
    ...fc.sample(validMiniCluster, { numRuns: Math.ceil(SAMPLES / 4), seed: SEED }),
    ...fc.sample(hostileMiniCluster, { numRuns: SAMPLES, seed: SEED }).flatMap(inTheHub),
  ],
  validate: (sample) => validateMiniCluster(sample),
};

function parity(served: ServedVersion): void {
  describe(`the CRD and the validator agree on ${served.version} (local API server)`, () => {
    it('stores exactly what the validator accepts, and every accepted MiniCluster renders objects the server takes', async (t) => {
      const { kc } = await cluster();
      await installCrd();
      const namespace = await withNamespace(t, 'parity', { hostStorage: true }); // the schema's checks, not the tenancy's
      const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      t.after(() => agent.destroy());

      const samples = served.samples();
      const failures: string[] = [];
      let accepted = 0;
      let objects = 0;
      let hostlistOnly = 0;
      const started = Date.now();

      await forEachConcurrently(samples, async (sample, index) => {
        const body = sample as { metadata?: Record<string, unknown> };
        const result = served.validate(sample);
        const answer = await dryRunCreate(
          kc,
          agent,
          `/apis/${GROUP}/${served.version}/namespaces/${namespace}/${PLURAL}`,
          { ...body, apiVersion: served.apiVersion, metadata: { ...body.metadata, namespace } },
        );
        const stored = answer.status === 201;
        if (stored && !result.ok && refusedOnlyForTheHostlist(result)) hostlistOnly++;
        else if (stored !== result.ok) {
          failures.push(
            `sample ${index}: the server ${stored ? 'stored' : `refused (${answer.status})`} what the validator ${result.ok ? 'accepts' : 'refuses'}: ${
              stored ? (result.ok ? '' : result.problems.map(formatProblem).join('; ')) : answer.message
            }\n  ${shown(sample)}`,
          );
        }
        if (!result.ok) return;
        accepted++;
        const miniClusterInNamespace = { ...result.value, metadata: { ...result.value.metadata, namespace } };
        const owner = {
          apiVersion: served.apiVersion,
          kind: 'MiniCluster',
          name: result.value.metadata.name,
          uid: `uid-${index}`,
        };
        for (const object of renderMiniCluster(miniClusterInNamespace, KEYS, { owner })) {
          objects++;
          const objectAnswer = await dryRunCreate(kc, agent, collectionPath(object, namespace), object);
          if (objectAnswer.status !== 201) {
            failures.push(
              `sample ${index}: the server refused the rendered ${object.kind} (${objectAnswer.status}): ${objectAnswer.message}\n  ${shown(sample)}`,
            );
          }
        }
      });

      t.diagnostic(
        `${samples.length} MiniClusters (seed ${SEED}): ${accepted} accepted, ${objects} rendered objects, ` +
          `${hostlistOnly} stored but refused for their hostlist alone; ${Date.now() - started} ms`,
      );
      assert.ok(
        accepted > samples.length / 10,
        `only ${accepted} of ${samples.length} accepted: the property is too weak`,
      );
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} disagreements`);
    });
  });
}

parity(SPOKE);
parity(HUB);
