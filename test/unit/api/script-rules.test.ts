import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import fc from 'fast-check';
import { CONFIG_MAP_MAX_BYTES, SCRIPT_MAX_LENGTH } from '../../../src/api/shared/limits.ts';
import { BATCH_LINE_PATTERN } from '../../../src/api/shared/script-cel.ts';
import { API_VERSION } from '../../../src/api/group.ts';
import { validateMiniCluster } from '../../../src/api/validate.ts';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { hubModelOf } from '../../../src/api/v1alpha1/convert-defaulted.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { CURVE_CERT, fluxContainer, miniCluster } from './fixtures.ts';

const KEYS = {
  curveCertificate: CURVE_CERT,
  mungeKey: new Uint8Array(1024),
  restfulSeed: new Uint8Array(32),
};
const utf8 = new TextEncoder();

/** The ConfigMap's size when the validator of the input's version accepts it (the hub's or v1alpha1's). */
function configMapBytes(input: { apiVersion: string }): number | undefined {
  const result =
    input.apiVersion === API_VERSION ? validateMiniCluster(input) : validateMiniClusterV1alpha1(input);
  if (!result.ok) return undefined;
  const configMap = renderMiniCluster(hubModelOf(result.value), KEYS).find(
    (object) => object.kind === 'ConfigMap',
  ) as V1ConfigMap;
  return Object.entries(configMap.data ?? {}).reduce(
    (total, [key, value]) => total + utf8.encode(key).length + utf8.encode(value).length,
    0,
  );
}

/** A long text of one character: quotes cost five bytes each once quoted, emoji four. */
const longText = (maxLength: number) =>
  fc
    .tuple(fc.constantFrom("'", 'a', 'é', '😀', '\n', "'\n"), fc.integer({ min: 0, max: maxLength }))
    .map(([piece, count]) => piece.repeat(Math.floor(count / piece.length)));

describe('the ConfigMap budget', () => {
  it('keeps the ConfigMap of every accepted MiniCluster of either version, however large its texts, within 1 MiB', () => {
    let accepted = 0;
    let acceptedHub = 0;
    fc.assert(
      fc.property(
        fc.record({
          command: longText(SCRIPT_MAX_LENGTH),
          hooks: fc.array(longText(SCRIPT_MAX_LENGTH), { minLength: 5, maxLength: 5 }),
          prefix: longText(1024),
          mode: fc.constantFrom({}, { batch: true }, { batch: true, batchRaw: true }, { launcher: true }),
          optionFlags: longText(1024),
          wrap: longText(1024),
          submitCommand: longText(1024),
          brokerConfig: fc.option(longText(65536), { nil: undefined }),
          installRoot: longText(4000).map((text) => `/${text.replaceAll('\n', '')}`),
          hostlist: fc.option(
            fc.constantFrom(
              `${"'".repeat(4000)}`,
              `n-[0-${10000}]`,
              Array.from({ length: 800 }, (_, index) => `'"${index}`).join(','),
            ),
            { nil: undefined },
          ),
        }),
        ({
          command,
          hooks,
          prefix,
          mode,
          optionFlags,
          wrap,
          submitCommand,
          brokerConfig,
          installRoot,
          hostlist,
        }) => {
          const [init, pre, brokerPre, workerPre, post] = hooks;
          const v1alpha1 = miniCluster({
            size: 1,
            containers: [
              fluxContainer({
                command,
                cores: 2,
                ...mode,
                commands: { init, pre, brokerPre, workerPre, post, prefix },
              }),
            ],
            flux: {
              optionFlags,
              wrap,
              submitCommand,
              installRoot,
              ...(brokerConfig === undefined ? {} : { brokerConfig }),
              ...(hostlist === undefined ? {} : { bursting: { hostlist } }),
            },
            archive: { path: installRoot },
          });
          // The same fields in the hub, where the Flux view adds its own steps to the entrypoint.
          const hub = { ...v1alpha1, apiVersion: API_VERSION };
          const bytes = configMapBytes(v1alpha1);
          const hubBytes = configMapBytes(hub);
          if (bytes !== undefined) {
            accepted++;
            assert.ok(bytes <= CONFIG_MAP_MAX_BYTES, `ConfigMap of ${bytes} bytes`);
          }
          if (hubBytes !== undefined) {
            acceptedHub++;
            assert.ok(hubBytes <= CONFIG_MAP_MAX_BYTES, `hub ConfigMap of ${hubBytes} bytes`);
          }
        },
      ),
      { numRuns: 50 },
    );
    assert.ok(accepted > 10, `only ${accepted} accepted`);
    assert.ok(acceptedHub > 10, `only ${acceptedHub} hub MiniClusters accepted`);
  });

  it('accepts every hook and the command at their full length in plain text', () => {
    const text = 'echo x\n'.repeat(Math.floor(SCRIPT_MAX_LENGTH / 7));
    const input = miniCluster({
      containers: [
        fluxContainer({
          command: text,
          commands: { init: text, pre: text, brokerPre: text, workerPre: text, post: text, prefix: 'time' },
        }),
      ],
    });
    const result = validateMiniClusterV1alpha1(input);
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
  });

  it('refuses hooks full of quotes that would overflow the ConfigMap', () => {
    const quotes = "'".repeat(SCRIPT_MAX_LENGTH);
    const result = validateMiniClusterV1alpha1(
      miniCluster({
        containers: [fluxContainer({ command: quotes, commands: { init: quotes, pre: quotes } })],
      }),
    );
    assert.equal(result.ok, false);
    if (!result.ok)
      assert.match(
        formatProblem(result.problems[0] ?? { path: '', message: '' }),
        /^spec\.containers\[0\]: command and commands together take \d+ bytes/,
      );
  });

  it('refuses a batch command of many lines with long job options', () => {
    const result = validateMiniClusterV1alpha1(
      miniCluster({
        containers: [fluxContainer({ batch: true, command: 'hostname\n'.repeat(5000) })],
        flux: { optionFlags: '-o ' + 'x'.repeat(200) },
      }),
    );
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.problems[0]?.path, 'spec.flux');
  });
});

describe('BATCH_LINE_PATTERN', () => {
  const batchLine = new RegExp(BATCH_LINE_PATTERN, 'u');

  /** What render submits: the trimmed lines that are neither blank nor comments. */
  function renderSubmitsALine(command: string): boolean {
    return command
      .split('\n')
      .map((line) => line.trim())
      .some((line) => line !== '' && !line.startsWith('#'));
  }

  it('finds a line exactly when render would submit one', () => {
    const piece = fc.constantFrom(
      '\n',
      '\r',
      ' ',
      '\t',
      '\v',
      '\f',
      '\u00a0',
      '\u3000',
      '\u2028',
      '\u2029',
      '\ufeff',
      '\u0085',
      '\u180e',
      '#',
      'a',
      'é',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const command = pieces.join('');
        assert.equal(batchLine.test(command), renderSubmitsALine(command), JSON.stringify(command));
      }),
      { numRuns: 5000 },
    );
  });
});
