import { microTime, type EventsApi } from '../kube/api-clients.ts';
import { randomBytes } from 'node:crypto';

export interface EventTarget {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly uid?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface RecordedEvent {
  readonly type: EventType;
  /** CamelCase, e.g. `Ready`. */
  readonly reason: string;
  /** What the controller did, e.g. `Reconcile`. */
  readonly action: string;
  /** For humans; never secret material. */
  readonly note: string;
}

const NOTE_MAX_LENGTH = 1024;

/** Writes events.k8s.io/v1 Events about MiniClusters. Failures are reported, never thrown. */
export class EventRecorder {
  private readonly api: EventsApi;
  private readonly controller: string;
  private readonly instance: string;
  private readonly onError: (error: unknown) => void;

  constructor(options: {
    api: EventsApi;
    controller: string;
    instance: string;
    onError: (error: unknown) => void;
  }) {
    this.api = options.api;
    this.controller = options.controller;
    this.instance = options.instance;
    this.onError = options.onError;
  }

  async record(target: EventTarget, event: RecordedEvent): Promise<void> {
    const regarding: { apiVersion: string; kind: string; name: string; namespace: string; uid?: string } = {
      apiVersion: target.apiVersion,
      kind: target.kind,
      name: target.name,
      namespace: target.namespace,
    };
    if (target.uid !== undefined) regarding.uid = target.uid;
    try {
      await this.api.createNamespacedEvent({
        namespace: target.namespace,
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: `${target.name}.${randomBytes(8).toString('hex')}`, namespace: target.namespace },
          eventTime: microTime(),
          reportingController: this.controller,
          reportingInstance: this.instance,
          action: event.action,
          reason: event.reason,
          note: event.note.slice(0, NOTE_MAX_LENGTH),
          type: event.type,
          regarding,
        },
      });
    } catch (error) {
      this.onError(error);
    }
  }
}
