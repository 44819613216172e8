/** Why reading a MiniCluster's Flux queue failed, as a reason the controller turns into a condition. */
export type FluxQueueReadReason = 'PodNotFound' | 'ExecFailed' | 'Timeout' | 'BadOutput' | 'FluxUnavailable';

export class FluxQueueReadError extends Error {
  override name = 'FluxQueueReadError';
  readonly reason: FluxQueueReadReason;
  /** The script's exit status, when it ran and failed. */
  readonly exitCode?: number;
  constructor(reason: FluxQueueReadReason, message: string, exitCode?: number) {
    super(message);
    this.reason = reason;
    if (exitCode !== undefined) this.exitCode = exitCode;
  }
}
