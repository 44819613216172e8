/**
 * The text that becomes the entrypoint and broker.toml (the MiniCluster's ConfigMap): a batch
 * command with something to submit, a burst hostlist that expands, and a total size within what
 * Kubernetes takes for a ConfigMap (1 MiB), or the operator could never create it.
 *
 * The size is bounded, not computed: the entrypoint quotes every user text once (a `'` becomes five
 * characters) and some twice (job options in the program text, a batch script); the bounds below
 * count that, in UTF-8 bytes, the same way here and in CEL. script-rules.test.ts checks that
 * rendered ConfigMaps stay within them.
 */
import { decodeHostlist } from '../flux/hostlist.ts';
import { CONFIG_MAP_MAX_BYTES } from './limits.ts';
import type { Problem } from './problems.ts';
import { celRunsFlux, duplicates } from './rule-helpers.ts';
import type { SemanticRule } from './rule-helpers.ts';
import { celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import type { DefaultedContainer, DefaultedMiniClusterSpec } from './schema.ts';

/**
 * What `String.prototype.trim` removes (WhiteSpace and LineTerminator): tab to carriage return, the
 * space separators, the line and paragraph separators and the byte order mark. Needs the `u` flag
 * in JavaScript; RE2 reads `\p{Zs}` as it is.
 */
const JS_WHITESPACE = '\\t-\\r\\p{Zs}\\u2028\\u2029\\ufeff';
/**
 * A line whose first character after whitespace is not `#`: a line render submits (it skips blank
 * lines and comments). The whitespace may span blank lines, landing on the next line's first
 * character.
 */
export const BATCH_LINE_PATTERN = `(^|\\n)[${JS_WHITESPACE}]*[^${JS_WHITESPACE}#]`;

const batchLine = new RegExp(BATCH_LINE_PATTERN, 'u');

/** Text with something besides whitespace: a command render does not treat as absent. */
export const HAS_TEXT_PATTERN = `[^${JS_WHITESPACE}]`;

/** The rendered ConfigMap's fixed part: the entrypoint's own text, paths, host lists, R. */
export const CONFIG_MAP_FIXED_BYTES = 192 * 1024;
/** Shell text of one container (command and hooks), as quoted into the entrypoint. */
export const CONTAINER_SCRIPT_MAX_BYTES = 512 * 1024;
/** The rest: Flux options quoted into the entrypoint, batch lines, the user's broker.toml. */
export const SPEC_SCRIPT_MAX_BYTES =
  CONFIG_MAP_MAX_BYTES - CONFIG_MAP_FIXED_BYTES - CONTAINER_SCRIPT_MAX_BYTES;
/** Words of one batch submission besides the line and the job options (`flux submit ... -n N -N M`). */
const BATCH_LINE_BYTES = 64;

const CONTAINER_TEXTS = ['init', 'pre', 'brokerPre', 'workerPre', 'post', 'prefix'] as const;

const utf8 = new TextEncoder();

function bytes(text: string): number {
  return utf8.encode(text).length;
}

function quotes(text: string): number {
  return text.split("'").length - 1;
}

/** Bytes of `text` quoted once as a shell word. */
function quotedOnce(text: string | undefined): number {
  return text === undefined ? 0 : bytes(text) + 4 * quotes(text) + 2;
}

/** Bytes of one word quoted twice (a batch script inside the program text). */
function wordQuotedTwice(text: string): number {
  return bytes(text) + 16 * quotes(text) + 10;
}

/** Bytes of words (job options) quoted as words, then again with the program text. */
function wordsQuotedTwice(text: string | undefined): number {
  return text === undefined ? 0 : 6 * bytes(text) + 16 * quotes(text) + 8;
}

function isBatch(container: DefaultedContainer): boolean {
  return container.batch && !container.batchRaw;
}

export function containerScriptBytes(container: DefaultedContainer): number {
  const { command } = container;
  const commandBytes =
    command === undefined
      ? 0
      : container.batch && container.batchRaw
        ? wordQuotedTwice(command)
        : quotedOnce(command);
  return CONTAINER_TEXTS.reduce((total, hook) => total + quotedOnce(container.commands[hook]), commandBytes);
}

export function specScriptBytes(spec: DefaultedMiniClusterSpec): number {
  const { flux } = spec;
  const batchLines = spec.containers
    .filter((container) => container.runFlux && isBatch(container) && container.command !== undefined)
    .reduce(
      (total, container) =>
        total +
        (container.command ?? '').split('\n').length *
          (BATCH_LINE_BYTES + wordsQuotedTwice(flux.optionFlags)),
      0,
    );
  return (
    quotedOnce(flux.optionFlags) +
    wordsQuotedTwice(flux.optionFlags) +
    quotedOnce(flux.wrap) +
    quotedOnce(flux.submitCommand) +
    (flux.brokerConfig === undefined ? 0 : bytes(flux.brokerConfig)) +
    batchLines
  );
}

export const scriptSizes: SemanticRule = {
  name: "the entrypoint and broker.toml fit in the MiniCluster's ConfigMap",
  check: ({ spec }) => {
    const problems: Problem[] = [];
    spec.containers.forEach((container, index) => {
      const size = containerScriptBytes(container);
      if (size > CONTAINER_SCRIPT_MAX_BYTES) {
        problems.push({
          path: `spec.containers[${index}]`,
          message: `command and commands together take ${size} bytes in the entrypoint (quotes count five times), more than ${CONTAINER_SCRIPT_MAX_BYTES}; shorten them`,
        });
      }
    });
    const size = specScriptBytes(spec);
    if (size > SPEC_SCRIPT_MAX_BYTES) {
      problems.push({
        path: 'spec.flux',
        message: `optionFlags, wrap, submitCommand, brokerConfig and the batch lines (each with the optionFlags) take ${size} bytes in the MiniCluster's ConfigMap, more than ${SPEC_SCRIPT_MAX_BYTES}; shorten them`,
      });
    }
    return problems;
  },
};

export const batchCommand: SemanticRule = {
  name: 'a batch command has a line to submit',
  check: ({ spec }) =>
    spec.containers.flatMap((container, index) =>
      isBatch(container) && container.command !== undefined && !batchLine.test(container.command)
        ? [
            {
              path: `spec.containers[${index}].command`,
              message:
                'has no line to submit with batch: true (only blank lines and # comments); add a command line or remove batch',
            },
          ]
        : [],
    ),
};

export const burstHostlist: SemanticRule = {
  name: 'a burst hostlist expands to distinct hosts, at least size of them',
  check: ({ spec }) => {
    const hostlist = spec.flux.bursting?.hostlist;
    if (hostlist === undefined) return [];
    const path = 'spec.flux.bursting.hostlist';
    let hosts: string[];
    try {
      hosts = decodeHostlist(hostlist);
    } catch (error) {
      return [{ path, message: `is not a hostlist: ${(error as Error).message}` }];
    }
    const [duplicate] = duplicates(hosts, (host) => host);
    if (duplicate !== undefined) {
      return [
        {
          path,
          message: `lists ${JSON.stringify(hosts[duplicate.index])} twice; a host has one rank, so list it once`,
        },
      ];
    }
    if (hosts.length < spec.size) {
      return [
        {
          path,
          message: `lists ${hosts.length} hosts, fewer than spec.size (${spec.size}) brokers; list every host of the instance`,
        },
      ];
    }
    return [];
  },
};

// ---------------------------------------------------------------------------------------------
// The same checks in CEL.

function celBytes(text: string): string {
  return `bytes(${text}).size()`;
}

function celQuotes(text: string): string {
  return `(${text}.size() - ${text}.replace("'", '').size())`;
}

function celOptional(has: string, value: string, bound: (text: string) => string): string {
  return `(${has} ? ${bound(value)} : 0)`;
}

const celQuotedOnce = (text: string) => `${celBytes(text)} + 4 * ${celQuotes(text)} + 2`;
const celWordQuotedTwice = (text: string) => `${celBytes(text)} + 16 * ${celQuotes(text)} + 10`;
const celWordsQuotedTwice = (text: string) => `6 * ${celBytes(text)} + 16 * ${celQuotes(text)} + 8`;

const CEL_BATCH = '(has(self.batch) && self.batch && !(has(self.batchRaw) && self.batchRaw))';
const CEL_BATCH_RAW = '(has(self.batch) && self.batch && has(self.batchRaw) && self.batchRaw)';

/** Rules on a container. */
export const CONTAINER_SCRIPT_RULES: CelRule[] = [
  {
    rule: `!${CEL_BATCH} || !has(self.command) || self.command.matches(${celRegex(BATCH_LINE_PATTERN)})`,
    message: 'command has no line to submit with batch: true (only blank lines and # comments)',
    fieldPath: '.command',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `${[
      `(has(self.command) ? (${CEL_BATCH_RAW} ? ${celWordQuotedTwice('self.command')} : ${celQuotedOnce('self.command')}) : 0)`,
      ...CONTAINER_TEXTS.map((hook) =>
        celOptional(
          `has(self.commands) && has(self.commands.${hook})`,
          `self.commands.${hook}`,
          celQuotedOnce,
        ),
      ),
    ].join(' + ')} <= ${CONTAINER_SCRIPT_MAX_BYTES}`,
    message: `command and commands together must take at most ${CONTAINER_SCRIPT_MAX_BYTES} bytes in the entrypoint (quotes count five times); shorten them`,
    reason: 'FieldValueInvalid',
  },
];

const FLUX = 'self.flux';

function celFluxText(field: string, bound: (text: string) => string): string {
  return celOptional(`has(${FLUX}) && has(${FLUX}.${field})`, `${FLUX}.${field}`, bound);
}

/** Rules on the spec. */
export const SPEC_SCRIPT_RULES: CelRule[] = [
  {
    rule: `${[
      celFluxText('optionFlags', celQuotedOnce),
      celFluxText('optionFlags', celWordsQuotedTwice),
      celFluxText('wrap', celQuotedOnce),
      celFluxText('submitCommand', celQuotedOnce),
      celFluxText('brokerConfig', celBytes),
      // map with a condition, not filter then map: the API server estimates that chain far higher.
      `self.containers.map(container, ${celRunsFlux('self', 'container')} && has(container.batch) && container.batch && !(has(container.batchRaw) && container.batchRaw) && has(container.command) ? (container.command.size() - container.command.replace('\\n', '').size() + 1) * (${BATCH_LINE_BYTES} + ${celFluxText('optionFlags', celWordsQuotedTwice)}) : 0).sum()`,
    ].join(' + ')} <= ${SPEC_SCRIPT_MAX_BYTES}`,
    message: `optionFlags, wrap, submitCommand, brokerConfig and the batch lines (each with the optionFlags) must take at most ${SPEC_SCRIPT_MAX_BYTES} bytes in the MiniCluster's ConfigMap; shorten them`,
    fieldPath: '.flux',
    reason: 'FieldValueInvalid',
  },
];
