/**
 * Reads the Flux queue of a MiniCluster by running fluxQueueScript() in its lead broker's pod through
 * the Kubernetes exec API (WebSocket): one round trip per snapshot. Every failure becomes a
 * FluxQueueReadError with a reason the controller can turn into a condition; nothing here throws
 * anything else for a broken, missing or slow pod.
 */
import { Writable } from 'node:stream';
import { ApiException, CoreV1Api, Exec, type KubeConfig, type V1Status } from '@kubernetes/client-node';
import {
  FLUX_UNAVAILABLE_EXIT_CODE,
  FluxQueueParseError,
  fluxQueueScript,
  formatIdset,
  parseSnapshotOutput,
} from './flux-queue-parse.ts';
import type { FluxQueueReader, QueueActions, QueueSnapshot } from './queue.ts';
import { FluxQueueReadError } from './flux-queue-error.ts';

export const DEFAULT_FLUX_URI = 'local:///run/flux/local';
export const DEFAULT_TIMEOUT_MS = 15_000;
/** More output than this is not a queue snapshot. */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Longest stderr or server message quoted in an error. */
const MAX_QUOTED = 400;

export { FluxQueueReadError, type FluxQueueReadReason } from './flux-queue-error.ts';

export interface ExecFluxQueueReaderOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly podName: string;
  readonly container: string;
  /** The lead broker's local URI (`FLUX_URI`); default DEFAULT_FLUX_URI. */
  readonly fluxUri?: string;
  /** Where `flux` is when it is not on the container's PATH (a Flux view's command folder). */
  readonly fluxDir?: string;
  /** Run the script as this user (the instance owner) through `sudo -n -u`, when the exec user is not. */
  readonly runAs?: string;
  /** Whole round trip, connection included; default DEFAULT_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  /** Clock for `takenAt`; default `new Date()`. */
  readonly now?: () => Date;
}

const USER_NAME = /^[a-z_][a-z0-9_.-]{0,31}$/i;

/** The shell of the Flux container when Flux comes from a view: the one its entrypoint runs with. */
export const VIEW_SHELL = '/bin/bash';

/** The command the reader runs in the lead pod (exported for tests). */
export function snapshotCommand(
  fluxUri: string,
  runAs?: string,
  actions: QueueActions = {},
  fluxDir?: string,
): string[] {
  const drain = formatIdset(actions.drain ?? []);
  const undrain = formatIdset(actions.undrain ?? []);
  // With a Flux view the image may have no sh at all (the entrypoint needs bash and coreutils only,
  // docs/flux-view.md), and bash runs the POSIX script as well; images with Flux have sh.
  const shell = fluxDir !== undefined ? VIEW_SHELL : 'sh';
  const command = [shell, '-c', fluxQueueScript(), 'flux-queue', fluxUri];
  if (fluxDir !== undefined) command.push(drain, undrain, fluxDir);
  else if (drain !== '' || undrain !== '') command.push(drain, undrain);
  if (runAs === undefined) return command;
  if (!USER_NAME.test(runAs)) throw new RangeError(`runAs: not a user name: ${JSON.stringify(runAs)}`);
  return ['sudo', '-n', '-u', runAs, '--', ...command];
}

/** Printable, single-spaced and clipped: safe to put into a condition message. */
export function clip(text: string, max = MAX_QUOTED): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

/** Exit code in an exec status: a real kubelet's NonZeroExitCode cause, or kwok's `exit status N`. */
export function exitCodeOf(status: V1Status): number | undefined {
  if (status.reason === 'NonZeroExitCode') {
    const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
    if (cause?.message !== undefined && /^\d+$/.test(cause.message)) return Number(cause.message);
  }
  const match = /exit status (\d+)/.exec(status.message ?? '');
  return match ? Number(match[1]) : undefined;
}

class Collector extends Writable {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  readonly limit: number;
  readonly onOverflow: () => void;
  constructor(limit: number, onOverflow: () => void) {
    super();
    this.limit = limit;
    this.onOverflow = onOverflow;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) this.onOverflow();
    else this.chunks.push(chunk);
    done();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

interface Closable {
  close(): void;
  terminate?: () => void;
  addEventListener?: (type: 'close', listener: () => void) => void;
  on?: (type: 'close', listener: () => void) => void;
}

interface ExecOutcome {
  status?: V1Status;
  stdout: string;
  stderr: string;
}

export class ExecFluxQueueReader implements FluxQueueReader {
  readonly options: Required<Omit<ExecFluxQueueReaderOptions, 'runAs' | 'fluxDir'>> & {
    runAs?: string;
    fluxDir?: string;
  };
  /** The command of a snapshot without actions. */
  readonly command: string[];
  readonly #exec: Exec;

  constructor(options: ExecFluxQueueReaderOptions) {
    this.options = {
      fluxUri: DEFAULT_FLUX_URI,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
      now: () => new Date(),
      ...options,
    };
    if (!(this.options.timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive`);
    this.command = snapshotCommand(this.options.fluxUri, this.options.runAs, {}, this.options.fluxDir);
    this.#exec = new Exec(this.options.kubeConfig);
  }

  get #target(): string {
    return `${this.options.namespace}/${this.options.podName} container ${this.options.container}`;
  }

  async snapshot(actions: QueueActions = {}): Promise<QueueSnapshot> {
    const { fluxUri, runAs, fluxDir } = this.options;
    const command = snapshotCommand(fluxUri, runAs, actions, fluxDir);
    const takenAt = this.options.now();
    const outcome = await this.#run(command);
    const { status, stdout, stderr } = outcome;
    if (status === undefined)
      throw new FluxQueueReadError(
        'ExecFailed',
        `exec in ${this.#target}: the connection closed without the command's status` +
          (stderr ? `; stderr: ${clip(stderr)}` : ''),
      );
    if (status.status !== 'Success') {
      const code = exitCodeOf(status);
      if (code === FLUX_UNAVAILABLE_EXIT_CODE)
        throw new FluxQueueReadError(
          'FluxUnavailable',
          `flux in ${this.#target} (FLUX_URI ${this.options.fluxUri}): ${clip(stderr) || 'no error output'}`,
          code,
        );
      if (code !== undefined)
        throw new FluxQueueReadError(
          'ExecFailed',
          `queue script in ${this.#target} failed with exit status ${code}` +
            (stderr ? `: ${clip(stderr)}` : ''),
          code,
        );
      // kwok (and some runtimes) quote the whole command line: leave the script out of the message.
      const said = (status.message ?? status.reason ?? 'unknown error').replace(
        command.join(' '),
        `${command.slice(0, command.indexOf(fluxQueueScript())).join(' ')} <flux-queue script>`,
      );
      throw new FluxQueueReadError('ExecFailed', `exec in ${this.#target} failed: ${clip(said)}`);
    }
    try {
      return parseSnapshotOutput(stdout, takenAt);
    } catch (err) {
      if (err instanceof FluxQueueParseError)
        throw new FluxQueueReadError('BadOutput', `queue script in ${this.#target}: ${clip(err.message)}`);
      throw err;
    }
  }

  #run(command: string[]): Promise<ExecOutcome> {
    const { namespace, podName, container, timeoutMs, maxOutputBytes } = this.options;
    return new Promise<ExecOutcome>((resolve, reject) => {
      let settled = false;
      let socket: Closable | undefined;
      let status: V1Status | undefined;
      const finish = (error: FluxQueueReadError | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) {
          if (socket) abort(socket);
          reject(error);
        } else resolve({ status, stdout: stdout.text(), stderr: stderr.text() });
      };
      const overflow = () =>
        finish(
          new FluxQueueReadError(
            'BadOutput',
            `queue script in ${this.#target}: more than ${maxOutputBytes} bytes of output`,
          ),
        );
      const stdout = new Collector(maxOutputBytes, overflow);
      const stderr = new Collector(maxOutputBytes, overflow);
      const timer = setTimeout(
        () =>
          finish(
            new FluxQueueReadError(
              'Timeout',
              `queue script in ${this.#target} did not finish within ${timeoutMs} ms` +
                (socket ? '' : ' (exec connection not established)'),
            ),
          ),
        timeoutMs,
      );
      this.#exec
        .exec(namespace, podName, container, command, stdout, stderr, null, false, (s) => {
          status = s;
        })
        .then(
          (ws) => {
            const closable = ws as unknown as Closable;
            socket = closable;
            if (settled) {
              abort(closable);
              return;
            }
            const onClose = () => finish(undefined);
            if (closable.addEventListener) closable.addEventListener('close', onClose);
            else closable.on?.('close', onClose);
          },
          (err: unknown) => {
            if (settled) return;
            this.#explainConnectFailure(err).then(finish, (explainError: unknown) =>
              finish(
                new FluxQueueReadError(
                  'ExecFailed',
                  `exec in ${this.#target}: ${clip(String(explainError))}`,
                ),
              ),
            );
          },
        );
    });
  }

  /** The exec WebSocket could not be opened: say why, looking at the pod when the server did not. */
  async #explainConnectFailure(err: unknown): Promise<FluxQueueReadError> {
    const message = errorMessage(err);
    const { namespace, podName, container, kubeConfig } = this.options;
    let pod;
    try {
      pod = await kubeConfig.makeApiClient(CoreV1Api).readNamespacedPod({ name: podName, namespace });
    } catch (readError) {
      if (readError instanceof ApiException && readError.code === 404)
        return new FluxQueueReadError('PodNotFound', `pod ${namespace}/${podName} not found`);
      return new FluxQueueReadError(
        'ExecFailed',
        `exec in ${this.#target}: ${clip(message)} (and reading the pod failed: ${clip(errorMessage(readError))})`,
      );
    }
    const containers = pod.spec?.containers.map((c) => c.name) ?? [];
    if (!containers.includes(container))
      return new FluxQueueReadError(
        'ExecFailed',
        `pod ${namespace}/${podName} has no container ${container} (containers: ${containers.join(', ')})`,
      );
    const phase = pod.status?.phase ?? 'Unknown';
    if (phase !== 'Running')
      return new FluxQueueReadError(
        'ExecFailed',
        `pod ${namespace}/${podName} is ${phase}, not Running: ${clip(message)}`,
      );
    return new FluxQueueReadError('ExecFailed', `exec in ${this.#target}: ${clip(message)}`);
  }
}

function abort(socket: Closable): void {
  try {
    if (socket.terminate) socket.terminate();
    else socket.close();
  } catch {
    // Already closed.
  }
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null) {
    const { message, error } = err as { message?: unknown; error?: unknown };
    if (typeof message === 'string' && message !== '') return message;
    if (error instanceof Error) return error.message;
  }
  return String(err);
}
