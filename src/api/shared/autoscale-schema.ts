/**
 * `spec.autoscale` (this project's, in both versions): the MiniCluster follows its own Flux queue.
 * Jobs waiting for nodes that are not up make it grow, within maxSize; brokers without a job for
 * idleSeconds go, down to minSize. Every scale-in (this one, `kubectl scale`, an HPA) first drains the
 * ranks that go and waits until no job runs on them (docs/elastic.md).
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { MAX_BROKERS } from './limits.ts';
import { withDefault } from './schema-helpers.ts';
import type { CelRule, Defaulted } from './schema-helpers.ts';

export const DEFAULT_AUTOSCALE_MIN_SIZE = 1;
export const DEFAULT_IDLE_SECONDS = 60;
export const DEFAULT_POLL_SECONDS = 10;
export const DEFAULT_DRAIN_SECONDS = 300;
/** A day: longer bounds read as a unit mistake. */
const MAX_SECONDS = 86_400;

export const AutoscaleSchema = Type.Object(
  {
    minSize: withDefault(
      Type.Integer({
        description: 'Fewest brokers the autoscaler leaves running (at most size).',
        minimum: 1,
        maximum: MAX_BROKERS,
      }),
      DEFAULT_AUTOSCALE_MIN_SIZE,
    ),
    idleSeconds: withDefault(
      Type.Integer({
        description: 'A broker with no job for this long may be removed.',
        minimum: 1,
        maximum: MAX_SECONDS,
      }),
      DEFAULT_IDLE_SECONDS,
    ),
    pollSeconds: withDefault(
      Type.Integer({
        description: 'How often the operator reads the Flux queue (one exec into the lead broker per read).',
        minimum: 1,
        maximum: 3_600,
      }),
      DEFAULT_POLL_SECONDS,
    ),
    drainSeconds: withDefault(
      Type.Integer({
        description:
          'How long a scale-in may wait for jobs on the drained ranks to end before the status reports it stuck (it is never forced).',
        minimum: 1,
        maximum: MAX_SECONDS,
      }),
      DEFAULT_DRAIN_SECONDS,
    ),
  },
  {
    description:
      'Follow the Flux queue: grow for jobs waiting on nodes (within maxSize), remove idle brokers (down to minSize). Unset: the size changes only when asked.',
    additionalProperties: false,
  },
);

export type Autoscale = Static<typeof AutoscaleSchema>;
export type DefaultedAutoscale = Defaulted<typeof AutoscaleSchema>;

export const AUTOSCALE_MIN_SIZE_MESSAGE =
  'must be <= spec.size (the brokers at start); lower autoscale.minSize or raise size';

/** CEL on the spec: minSize <= size (size <= maxSize is the spec's own rule). */
export const SPEC_AUTOSCALE_RULES: CelRule[] = [
  {
    rule: '!has(self.autoscale) || !has(self.autoscale.minSize) || self.autoscale.minSize <= self.size',
    message: `spec.autoscale.minSize ${AUTOSCALE_MIN_SIZE_MESSAGE}`,
    fieldPath: '.autoscale.minSize',
    reason: 'FieldValueInvalid',
  },
];
