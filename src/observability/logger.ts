/**
 * The operator's logger, on pino. JSON lines by default: `level` as a label, `time` in ISO 8601,
 * `msg`, plus the child bindings (`namespace`, `name`, `reconcileID` during a reconcile). `pretty`
 * renders the same records for a human at a terminal.
 *
 * Secret material never reaches a line: every record, binding and message goes through the
 * redaction layer of ./redact.ts (field names, free-text scrubbing, pino path redaction).
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { DestinationStream, Logger, LoggerOptions as PinoOptions } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { CENSOR, REDACT_PATHS, redactSecretFields, scrubSecrets, serializeError } from './redact.ts';

export type { Logger } from 'pino';
export {
  CENSOR,
  REDACT_PATHS,
  SECRET_FIELD_NAMES,
  redactSecretFields,
  scrubSecrets,
  serializeError,
} from './redact.ts';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'pretty';

/** The field that ties the lines of one reconcile together (controller-runtime's name for it). */
export const RECONCILE_ID_KEY = 'reconcileID';

export interface CreateLoggerOptions {
  readonly level?: LogLevel;
  readonly format?: LogFormat;
  /** Where lines go; standard output by default. Anything with a `write(string)` method. */
  readonly destination?: DestinationStream;
  /** Pretty format only: colour the output. By default, only when the destination is a TTY. */
  readonly colorize?: boolean;
  /** Fields on every line; pino's default is `pid` and `hostname`, `null` drops them. */
  readonly base?: Record<string, unknown> | null;
}

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

function isTty(destination: DestinationStream | undefined): boolean {
  if (destination === undefined) return process.stdout.isTTY === true;
  return (destination as { isTTY?: boolean }).isTTY === true;
}

function scrubMessage(message: unknown): unknown {
  return typeof message === 'string' ? scrubSecrets(message) : message;
}

/** The pino options both formats share: levels, redaction and serializers. */
function baseOptions(options: CreateLoggerOptions): PinoOptions {
  const level = options.level ?? 'info';
  if (!isLogLevel(level)) {
    throw new Error(`unknown log level ${JSON.stringify(level)}; expected one of ${LOG_LEVELS.join(', ')}`);
  }
  const result: PinoOptions = {
    level,
    redact: { paths: [...REDACT_PATHS], censor: CENSOR },
    serializers: {
      err: serializeError,
      error: serializeError,
      // Applied by pino to the message, including one it takes from a logged error's message.
      msg: scrubMessage,
    },
  };
  if (options.base !== undefined) result.base = options.base;
  return result;
}

/** A logger writing JSON lines (default) or pretty text to `destination` (standard output). */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const format = options.format ?? 'json';
  if (format !== 'json' && format !== 'pretty') {
    throw new Error(`unknown log format ${JSON.stringify(format)}; expected json or pretty`);
  }
  const common = baseOptions(options);
  const formatters = {
    bindings: (bindings: Record<string, unknown>) => redactSecretFields(bindings) as Record<string, unknown>,
    log: (record: Record<string, unknown>) => redactSecretFields(record) as Record<string, unknown>,
  };
  if (format === 'pretty') {
    const prettify = prettyFactory({
      colorize: options.colorize ?? isTty(options.destination),
      translateTime: 'SYS:HH:MM:ss.l',
      // `namespace/name` before the message; pino-pretty would otherwise take `name` for the logger's.
      messageFormat: '{if namespace}{namespace}/{end}{if name}{name} {end}{msg}',
      ignore: 'pid,hostname,namespace,name',
    });
    const target = options.destination ?? pino.destination({ dest: 1, sync: true });
    // Each JSON line pino writes is rendered and passed on synchronously, in order.
    const stream: DestinationStream = { write: (line: string) => target.write(prettify(line)) };
    // Numeric levels and epoch times here: pino-pretty names, colours and formats them itself.
    return pino({ ...common, formatters }, stream);
  }
  const jsonOptions: PinoOptions = {
    ...common,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { ...formatters, level: (label: string) => ({ level: label }) },
  };
  // Standard output, written synchronously: the operator logs little, and nothing is lost on a crash.
  return pino(jsonOptions, options.destination ?? pino.destination({ dest: 1, sync: true }));
}

/** A short random id for one reconcile (8 hex digits). */
export function newReconcileId(random: (size: number) => Uint8Array = randomBytes): string {
  return Buffer.from(random(4)).toString('hex');
}

export interface ReconcileTarget {
  readonly namespace: string;
  readonly name: string;
  /** A fresh one from newReconcileId() when absent. */
  readonly reconcileId?: string;
  readonly controller?: string;
}

/** The logger for one reconcile: every line carries the object's namespace and name, and the reconcile id. */
export function reconcileLogger(base: Logger, target: ReconcileTarget): Logger {
  const bindings: Record<string, string> = {};
  if (target.controller !== undefined) bindings.controller = target.controller;
  bindings.namespace = target.namespace;
  bindings.name = target.name;
  bindings[RECONCILE_ID_KEY] = target.reconcileId ?? newReconcileId();
  return base.child(bindings);
}

/** What one reconcile logs through: structured fields and a message. */
export interface ReconcileLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  /** Each step of a pass (src/runtime/steps.ts); dropped unless the level is debug or lower. */
  debug?(fields: Record<string, unknown>, message: string): void;
}

/**
 * reconcileLogger's logger, made at the first line: most passes log nothing, and a child logger
 * (its bindings serialized and redacted) and a random id cost more than the pass's own work.
 */
export function lazyReconcileLogger(base: Logger, target: ReconcileTarget): ReconcileLog {
  let child: Logger | undefined;
  const logger = () => (child ??= reconcileLogger(base, target));
  return {
    info: (fields, message) => logger().info(fields, message),
    warn: (fields, message) => logger().warn(fields, message),
    // Asked before the child is made: a pass that logs nothing else costs no logger.
    debug: (fields, message) => {
      if (base.isLevelEnabled('debug')) logger().debug(fields, message);
    },
  };
}
