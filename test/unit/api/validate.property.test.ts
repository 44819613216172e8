import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  applyDefaults,
  miniClusterCrd,
  type MiniCluster,
  type MiniClusterSpec,
} from '../../../src/api/index.ts';
import { MiniClusterSpecSchema } from '../../../src/api/schema.ts';
import { applySchemaDefaults } from '../../../src/api/shared/defaulting.ts';
import { formatProblem, type Problem } from '../../../src/api/shared/problems.ts';
import { validateMiniCluster } from '../../../src/api/validate.ts';
import { toV1alpha1, toV1alpha2 } from '../../../src/api/v1alpha1/convert.ts';
import { applyDefaultsV1alpha1 } from '../../../src/api/v1alpha1/defaults.ts';
import { MiniClusterV1alpha1SpecSchema } from '../../../src/api/v1alpha1/schema.ts';
import type { MiniClusterV1alpha1, MiniClusterV1alpha1Spec } from '../../../src/api/v1alpha1/schema.ts';
import { validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { VERSION_V1ALPHA1 } from '../../../src/api/v1alpha1/version.ts';
import { VERSION } from '../../../src/api/group.ts';
import { paths, setAt } from './hostile-arbitraries.ts';
import { validMiniCluster, validMiniClusterV1alpha1 } from './valid-arbitraries.ts';

const TOP_LEVEL_FIELDS = /^(apiVersion|kind|metadata|spec|status)(\.|\[|$)/;

/** What the properties below need of one version of the API. */
interface Version<T extends { metadata: { name: string }; spec: S }, S> {
  readonly name: string;
  readonly valid: fc.Arbitrary<T>;
  readonly validate: (raw: unknown) => { ok: true } | { ok: false; problems: Problem[] };
  readonly applyDefaults: (spec: S, name: string) => S;
  readonly specSchema: object;
}

const HUB: Version<MiniCluster, MiniClusterSpec> = {
  name: `${VERSION} (the hub)`,
  valid: validMiniCluster,
  validate: validateMiniCluster,
  applyDefaults: (spec, name) => applyDefaults(spec, name) as MiniClusterSpec,
  specSchema: MiniClusterSpecSchema,
};
const SPOKE: Version<MiniClusterV1alpha1, MiniClusterV1alpha1Spec> = {
  name: VERSION_V1ALPHA1,
  valid: validMiniClusterV1alpha1,
  validate: validateMiniClusterV1alpha1,
  applyDefaults: (spec, name) => applyDefaultsV1alpha1(spec, name) as MiniClusterV1alpha1Spec,
  specSchema: MiniClusterV1alpha1SpecSchema,
};

/** As JSON: fast-check draws some records without a prototype, which deepEqual would tell apart. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** The spec schema the CRD serves for `version`, as the API server defaults with it. */
function crdSpecSchema(version: string): object {
  const served = miniClusterCrd().spec.versions.find((entry) => entry.name === version);
  const spec = served?.schema.openAPIV3Schema.properties?.spec;
  assert.ok(spec, `the CRD serves ${version}`);
  return spec;
}

function validatorProperties<T extends { metadata: { name: string }; spec: S }, S>(
  version: Version<T, S>,
): void {
  describe(`the validator of ${version.name} (properties)`, () => {
    it('accepts every MiniCluster generated from the valid ranges', () => {
      fc.assert(
        fc.property(version.valid, (miniCluster) => {
          const result = version.validate(miniCluster);
          assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
        }),
        { numRuns: 300 },
      );
    });

    it('accepts its own defaulted output, and defaulting twice changes nothing', () => {
      fc.assert(
        fc.property(version.valid, (miniCluster) => {
          const once = version.applyDefaults(miniCluster.spec, miniCluster.metadata.name);
          assert.deepEqual(version.applyDefaults(once, miniCluster.metadata.name), once);
          assert.ok(version.validate({ ...miniCluster, spec: once }).ok);
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
        fc.property(version.valid, fc.nat(), replacement, (miniCluster, pick, value) => {
          const all = paths(miniCluster);
          const mutated = setAt(miniCluster, all[pick % all.length] ?? [], value);
          const result = version.validate(mutated);
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
          version.valid,
          fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 10001 })),
          (miniCluster, size) => {
            const result = version.validate({ ...miniCluster, spec: { ...miniCluster.spec, size } });
            assert.equal(result.ok, false);
            if (!result.ok) assert.ok(result.problems.some((problem) => problem.path === 'spec.size'));
          },
        ),
      );
    });

    it('never throws on arbitrary JSON', () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const result = version.validate(value);
          assert.equal(result.ok, false);
        }),
      );
    });
  });
}

validatorProperties(HUB);
validatorProperties(SPOKE);

describe('API server parity of the defaults (properties)', () => {
  for (const [version, served] of [
    [HUB, VERSION],
    [SPOKE, VERSION_V1ALPHA1],
  ] as const) {
    it(`defaults every valid ${version.name} spec with the CRD's schema as with the TypeBox schema`, () => {
      const crd = crdSpecSchema(served);
      fc.assert(
        fc.property(version.valid as fc.Arbitrary<{ spec: unknown }>, ({ spec }) => {
          assert.deepEqual(applySchemaDefaults(crd, spec), applySchemaDefaults(version.specSchema, spec));
        }),
        { numRuns: 200 },
      );
    });
  }
});

describe('conversion between the hub and the spoke (properties)', () => {
  it('takes every valid hub MiniCluster to v1alpha1 and back unchanged', () => {
    fc.assert(
      fc.property(validMiniCluster, (miniCluster) => {
        assert.deepEqual(toV1alpha2(toV1alpha1(miniCluster)), plain(miniCluster));
      }),
      { numRuns: 200 },
    );
  });

  it('takes every valid v1alpha1 MiniCluster to the hub and back unchanged, into a valid hub MiniCluster', () => {
    fc.assert(
      fc.property(validMiniClusterV1alpha1, (miniCluster) => {
        const hub = toV1alpha2(miniCluster);
        const result = validateMiniCluster(hub);
        assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
        assert.deepEqual(toV1alpha1(hub), plain(miniCluster));
      }),
      { numRuns: 200 },
    );
  });
});
