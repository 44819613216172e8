/**
 * Scripts: the CEL rules the CRD carries, twins of the validator's rules in script-rules.ts. The
 * schema takes these and the rules take the schema's types, so the two halves live apart.
 */
import { CONFIG_MAP_MAX_BYTES } from './limits.ts';
import { celRunsFlux } from './rule-helpers.ts';
import { celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

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
export const BATCH_LINE_BYTES = 64;

export const CONTAINER_TEXTS = ['init', 'pre', 'brokerPre', 'workerPre', 'post', 'prefix'] as const;

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
