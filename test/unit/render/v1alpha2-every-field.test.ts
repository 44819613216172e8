// Every field of the v1alpha2 spec, as the schema lists them, is acted on: it changes what the renderer
// makes (two valid MiniClusters that differ in it alone render differently), or it is one of the few
// listed here with the file that acts on it instead, or the validator refuses it. Hence the table of
// fields not acted on yet (src/api/not-yet-rendered.ts) is empty, and a field added to the
// API fails here until it is rendered, listed or refused.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import {
  API_VERSION,
  MiniClusterSpecSchema,
  NOT_YET_RENDERED,
  validateMiniCluster,
  type MiniClusterSpec,
} from '../../../src/api/index.ts';
import { LEFT_OUT_FLUX_FIELDS, LEFT_OUT_SECURITY_FIELDS } from '../../../src/api/shared/left-out.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import {
  goV1alpha2ExampleMiniClusters,
  ownExampleMiniClusters,
  type Named,
} from '../api/example-miniclusters.ts';
import { schemaFieldPaths } from '../api/schema-fields.ts';
import { V1ALPHA2_FIXTURES, refusedV1alpha2 } from '../api/v1alpha2-fixtures.ts';
import { sameButFor } from './field-changes.ts';
import { APP_IMAGE, KEYS, VIEW_IMAGE, plain } from './fixtures.ts';

function miniCluster(spec: Partial<MiniClusterSpec>): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: 'MiniCluster',
    metadata: { name: 'fields', namespace: 'default' },
    spec: { containers: [{ image: APP_IMAGE, command: 'hostname' }], ...spec },
  };
}

/** Where fields act that neither the fixtures nor the examples show. */
const CONTEXTS: Named[] = [
  {
    what: 'which of two containers runs Flux (runFlux)',
    object: miniCluster({
      containers: [
        { name: 'first', image: APP_IMAGE, command: 'hostname', runFlux: true },
        { name: 'second', image: APP_IMAGE, command: 'hostname', runFlux: false },
      ],
    }),
  },
  {
    what: 'Flux in the image: its install root and who runs it (fluxUser, runFluxAsRoot)',
    object: miniCluster({
      containers: [
        {
          image: APP_IMAGE,
          command: 'hostname',
          fluxUser: { name: 'flux', uid: 1000 },
          commands: { runFluxAsRoot: false },
        },
      ],
      flux: { container: { disable: true }, installRoot: '/usr' },
    }),
  },
  {
    what: 'a wrapped container beside Flux: its hook and the socket it waits for',
    object: miniCluster({
      containers: [
        { image: APP_IMAGE, command: 'hostname', runFlux: true },
        { name: 'beside', image: APP_IMAGE, command: 'sleep 1', commands: { servicePre: 'true' } },
      ],
      flux: { noWaitSocket: false },
    }),
  },
  { what: 'a submitted command', object: miniCluster({ flux: { submitCommand: 'flux submit' } }) },
];

/** Fields no rendered object changes with alone, and the file (or folder) that acts on each. */
const ACTED_ON_ELSEWHERE: { paths: string[]; by: string; how: string }[] = [
  {
    paths: ['autoscale.minSize', 'autoscale.idleSeconds', 'autoscale.pollSeconds', 'autoscale.drainSeconds'],
    by: 'src/controllers/minicluster/scale-step.ts',
    how: 'the controller polls the queue and scales the running MiniCluster',
  },
  {
    paths: [
      'flux.bursting.policy.maxBurstNodes',
      'flux.bursting.policy.idleSeconds',
      'flux.bursting.policy.pollSeconds',
      'flux.bursting.policy.targets[*].name',
      'flux.bursting.policy.targets[*].costPerNodeHour',
      'flux.bursting.policy.targets[*].maxNodes',
    ],
    by: 'src/burst/policy.ts',
    how: 'the controller plans bursts with the policy',
  },
  {
    paths: ['cleanup'],
    by: 'src/controllers/minicluster',
    how: 'the controller deletes the finished MiniCluster',
  },
  {
    paths: ['containers[*].volumes[*].emptyDir', 'services[*].volumes[*].emptyDir'],
    by: 'src/api/volume-rules.ts',
    how: 'a volume without a source is an emptyDir anyway; emptyDir: true lets its path default (volumeMountPath)',
  },
];

/** A source file's text, or the TypeScript files' of a folder. */
function sourceText(file: string): string {
  if (!statSync(file).isDirectory()) return readFileSync(file, 'utf8');
  return readdirSync(file, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => readFileSync(join(file, name), 'utf8'))
    .join('\n');
}

function rendered(object: unknown): unknown {
  const result = validateMiniCluster(object, { fluxViewImage: VIEW_IMAGE });
  return result.ok ? plain(renderMiniCluster(result.value, KEYS)) : undefined;
}

/** Whether two valid MiniClusters made from `base`, differing in the field `path` only, render differently. */
function rendersWith(base: Named, path: string): boolean {
  return sameButFor(base.object.spec, path, MiniClusterSpecSchema).some((specs) => {
    let first: unknown;
    for (const spec of specs) {
      const objects = rendered({ ...base.object, spec });
      if (objects === undefined) continue;
      if (first === undefined) first = objects;
      else if (!isDeepStrictEqual(objects, first)) return true;
    }
    return false;
  });
}

/** The fields the validator refuses (it names them, or an object holding them) wherever they are set. */
function refusedFields(paths: readonly string[]): string[] {
  const result = validateMiniCluster(refusedV1alpha2());
  assert.equal(result.ok, false);
  const named = result.ok
    ? []
    : result.problems.map((problem) => problem.path.replace(/^spec\./, '').replace(/\[[^\]]*\]/g, '[*]'));
  return paths.filter((path) => named.some((name) => path === name || path.startsWith(`${name}.`)));
}

describe('every v1alpha2 field is acted on', () => {
  const paths = schemaFieldPaths(MiniClusterSpecSchema);
  const elsewhere = ACTED_ON_ELSEWHERE.flatMap((entry) => entry.paths);
  let refused: string[] = [];
  let renderedFields: string[] = [];

  before(async () => {
    const current = ({ object }: Named) => object.apiVersion === API_VERSION;
    const own = ownExampleMiniClusters().filter(current);
    const go = (await goV1alpha2ExampleMiniClusters()).filter(current);
    assert.ok(own.length >= 8 && go.length >= 60, `${own.length} examples, ${go.length} Go examples`);
    const fixtures = V1ALPHA2_FIXTURES.map((make) => ({
      what: make.name,
      object: make() as unknown as Record<string, unknown>,
    }));
    const bases = [...fixtures, ...CONTEXTS, ...own, ...go];
    refused = refusedFields(paths);
    renderedFields = paths.filter((path) => bases.some((base) => rendersWith(base, path)));
  });

  it('each field of the schema changes the rendered objects, is acted on elsewhere, or is refused', (t) => {
    assert.ok(paths.length > 200, `${paths.length} fields`);
    t.diagnostic(
      `${paths.length} fields: ${renderedFields.length} rendered, ${elsewhere.length} acted on elsewhere, ${refused.length} refused`,
    );
    const accounted = new Set([...renderedFields, ...elsewhere, ...refused]);
    assert.deepEqual(
      paths.filter((path) => !accounted.has(path)),
      [],
    );
    // Each in one place only: the three lists split the schema's fields.
    assert.equal(renderedFields.length + elsewhere.length + refused.length, paths.length);
  });

  it('so nothing is left for the table of fields not acted on yet', () => {
    assert.deepEqual(NOT_YET_RENDERED, []);
  });

  it('the fields listed as acted on elsewhere change no rendered object, and their file reads them', () => {
    assert.deepEqual(
      elsewhere.filter((path) => renderedFields.includes(path) || refused.includes(path)),
      [],
    );
    for (const { paths: listed, by, how } of ACTED_ON_ELSEWHERE) {
      const source = sourceText(by);
      for (const path of listed) {
        assert.ok(paths.includes(path), `${path} is a field of the schema`);
        const name = path.split('.').at(-1) ?? '';
        assert.match(source, new RegExp(`\\b${name}\\b`), `${by} reads ${path}: ${how}`);
      }
    }
  });

  it('the refused fields render nowhere, and hold every field of the Go operator left out here', () => {
    assert.deepEqual(
      refused.filter((path) => renderedFields.includes(path)),
      [],
    );
    // Declared so that the API server keeps them, refused by name (src/api/shared/left-out.ts).
    const leftOut = paths.filter(
      (path) =>
        Object.keys(LEFT_OUT_FLUX_FIELDS).some((name) => path === `flux.${name}`) ||
        Object.keys(LEFT_OUT_SECURITY_FIELDS).some((name) => path.includes(`securityContext.${name}.`)),
    );
    assert.ok(leftOut.length > Object.keys(LEFT_OUT_FLUX_FIELDS).length, `${leftOut.length} left out`);
    assert.deepEqual(
      leftOut.filter((path) => !refused.includes(path)),
      [],
    );
  });
});
