import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { applyDefaults } from '../../../src/api/defaults.ts';
import { QUEUE_POLICIES } from '../../../src/api/flux-schema.ts';
import type { Container, MiniCluster } from '../../../src/api/schema.ts';
import { formatProblem, validateMiniCluster } from '../../../src/api/validate.ts';
import { paths, setAt } from './hostile-arbitraries.ts';

const dnsLabel = (maxTail: number) =>
  fc.stringMatching(new RegExp(`^[a-z]([-a-z0-9]{0,${maxTail}}[a-z0-9])?$`));
const labelValue = fc.stringMatching(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?)?$/);
const labelKey = fc.stringMatching(/^(example\.com\/)?[a-z][a-z0-9]{0,10}$/);

const volumeName = dnsLabel(8);

/** Volumes whose source is derived from their name, so equal names across containers agree. */
const volumes = fc
  .dictionary(volumeName, fc.boolean(), { maxKeys: 2 })
  .map((entries) =>
    Object.fromEntries(
      Object.entries(entries).map(([name, readOnly]) => [
        name,
        name.length % 2 === 0
          ? { path: `/scratch/${name}`, emptyDir: true }
          : { path: `/data/${name}`, claimName: name, readOnly },
      ]),
    ),
  );

// Built once: constructing arbitraries (regular expressions especially) inside chain() is slow.
const containerFields = fc.record(
  {
    image: fc.constantFrom('fluxrm/flux-sched:jammy', 'ghcr.io/example/app:1.0'),
    command: fc.string({ maxLength: 40 }),
    workingDir: fc.constantFrom('/', '/opt/app'),
    environment: fc.dictionary(fc.stringMatching(/^[A-Z_]{1,8}$/), fc.string({ maxLength: 20 }), {
      maxKeys: 3,
    }),
    ports: fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), { maxLength: 3 }),
    cores: fc.integer({ min: 1, max: 128 }),
    pullAlways: fc.boolean(),
    launcher: fc.boolean(),
    resources: fc.record(
      {
        limits: fc.dictionary(
          fc.constantFrom('cpu', 'memory'),
          fc.oneof(fc.nat(64), fc.constantFrom('500m', '2Gi')),
        ),
      },
      { requiredKeys: [] },
    ),
    volumes,
  },
  { requiredKeys: ['image'] },
);

function container(name: string | undefined, runFlux: boolean | undefined): fc.Arbitrary<Container> {
  return containerFields.map((fields) => ({
    ...fields,
    ...(name === undefined ? {} : { name }),
    ...(runFlux === undefined ? {} : { runFlux }),
  }));
}

/** Containers with unique names and exactly one Flux runner (named or not) when there are several. */
const containers: fc.Arbitrary<Container[]> = fc
  .integer({ min: 1, max: 3 })
  .chain((count) =>
    fc
      .integer({ min: 0, max: count - 1 })
      .chain((runnerIndex) =>
        fc.tuple(
          ...Array.from({ length: count }, (_, index) =>
            count === 1
              ? container(undefined, undefined)
              : index === runnerIndex
                ? container(undefined, true)
                : container(`sidecar-${index}`, index % 2 === 0 ? false : undefined),
          ),
        ),
      ),
  );

const validMiniCluster: fc.Arbitrary<MiniCluster> = fc
  .record({
    name: dnsLabel(20).map((name) => `mc-${name}`),
    size: fc.integer({ min: 1, max: 64 }),
    extra: fc.option(fc.integer({ min: 0, max: 64 }), { nil: undefined }),
    containers,
    interactive: fc.boolean(),
    logging: fc.record(
      { quiet: fc.boolean(), strict: fc.boolean(), debug: fc.boolean() },
      { requiredKeys: [] },
    ),
    jobLabels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
    flux: fc.record(
      {
        logLevel: fc.integer({ min: 0, max: 7 }),
        connectTimeout: fc.constantFrom('5s', '1m30s', '250ms'),
        topology: fc.constantFrom('binomial', 'kary:2', 'mincrit', 'mincrit:8'),
        scheduler: fc.record({ queuePolicy: fc.constantFrom(...QUEUE_POLICIES) }),
        bursting: fc.record({
          clusters: fc.array(fc.record({ size: fc.integer({ min: 1, max: 16 }) }, { requiredKeys: [] }), {
            maxLength: 3,
          }),
        }),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ name, size, extra, ...spec }) => ({
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: { name },
    spec: { size, ...(extra === undefined ? {} : { maxSize: size + extra }), ...spec },
  }));

/** Every path (as keys) into a JSON value, for mutations. */

const TOP_LEVEL_FIELDS = /^(apiVersion|kind|metadata|spec|status)(\.|\[|$)/;

describe('validateMiniCluster (properties)', () => {
  it('accepts every MiniCluster generated from the valid ranges', () => {
    fc.assert(
      fc.property(validMiniCluster, (miniCluster) => {
        const result = validateMiniCluster(miniCluster);
        assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      }),
      { numRuns: 300 },
    );
  });

  it('accepts its own defaulted output, and defaulting twice changes nothing', () => {
    fc.assert(
      fc.property(validMiniCluster, (miniCluster) => {
        const once = applyDefaults(miniCluster.spec, miniCluster.metadata.name);
        assert.deepEqual(applyDefaults(once, miniCluster.metadata.name), once);
        assert.ok(validateMiniCluster({ ...miniCluster, spec: once }).ok);
      }),
      { numRuns: 150 },
    );
  });

  it('answers any mutation with a result, never an exception; problems carry field paths', () => {
    const replacement = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constant(undefined),
      fc.integer({ min: -5, max: 20000 }),
      fc.string({ maxLength: 80 }),
    );
    fc.assert(
      fc.property(validMiniCluster, fc.nat(), replacement, (miniCluster, pick, value) => {
        const all = paths(miniCluster);
        const mutated = setAt(miniCluster, all[pick % all.length] ?? [], value);
        const result = validateMiniCluster(mutated);
        if (result.ok) return;
        assert.ok(result.problems.length > 0);
        for (const problem of result.problems) {
          assert.ok(problem.path === '' || TOP_LEVEL_FIELDS.test(problem.path), `bad path ${problem.path}`);
          assert.ok(problem.message.length > 0);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('reports a problem for out-of-range sizes', () => {
    fc.assert(
      fc.property(
        validMiniCluster,
        fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 10001 })),
        (miniCluster, size) => {
          const result = validateMiniCluster({ ...miniCluster, spec: { ...miniCluster.spec, size } });
          assert.equal(result.ok, false);
          if (!result.ok) assert.ok(result.problems.some((problem) => problem.path === 'spec.size'));
        },
      ),
    );
  });

  it('never throws on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = validateMiniCluster(value);
        assert.equal(result.ok, false);
      }),
    );
  });
});
