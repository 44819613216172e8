/**
 * Schema of `status`, written only by the controller through the status subresource. Conditions
 * follow the Kubernetes API conventions (metav1.Condition); `summary` is a display digest of them.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import {
  CONDITION_MESSAGE_MAX_LENGTH,
  CONDITION_REASON_MAX_LENGTH,
  CONDITION_TYPE_MAX_LENGTH,
  DNS_SUBDOMAIN_MAX_LENGTH,
  MAX_BROKERS,
  MAX_INTEGER,
  SHORT_STRING_MAX_LENGTH,
} from './limits.ts';
import { stringEnum } from './schema-helpers.ts';

/** Condition types the controller sets. `Ready` for long-running, `Succeeded`/`Failed` for bounded runs. */
export const CONDITION_READY = 'Ready';
export const CONDITION_SUCCEEDED = 'Succeeded';
export const CONDITION_FAILED = 'Failed';
/** True while the pod count moves towards spec.size. */
export const CONDITION_SCALING = 'Scaling';
/** With burst slots: whether the operator can read the queue and burst, and what it last did. */
export const CONDITION_BURSTING = 'Bursting';
/** RESTful mode: where the API is, and what of v1alpha1's fluxRestful and users differs here. */
export const CONDITION_RESTFUL_API = 'RestfulApi';
/** Under Kueue (a queue-name label): True while Kueue holds the Job suspended, with Kueue's own reason. */
export const CONDITION_QUEUED = 'Queued';
/** A scale-in waits for jobs on the ranks that go (they are drained in Flux first). */
export const CONDITION_DRAINING = 'Draining';

/** Why a waiting burstable job is not served (status.burstJobs[].reason); the planner's verdicts. */
export const BURST_JOB_REASONS = [
  'NodeCountUnknown',
  'NoBurstSlots',
  'ExceedsDeclaredHosts',
  'ExceedsMaxBurstNodes',
  'NoBurstTarget',
  'ExceedsTargetCapacity',
  'NoFreeCapacity',
] as const;
/** Most jobs status.burstJobs lists. */
export const MAX_LISTED_BURST_JOBS = 32;
/** Most job ids one status.bursts entry records. */
export const MAX_BURST_RECORD_JOBS = 32;

/** Values of `status.summary`, the Status column of `kubectl get`. */
export const SUMMARIES = [
  'Pending',
  'Queued',
  'Starting',
  'Ready',
  'Finishing',
  'Succeeded',
  'Failed',
] as const;

/** Condition `type`: CamelCase, optionally domain-prefixed (metav1.Condition's pattern). */
const CONDITION_TYPE_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';
/** Condition `reason`: CamelCase (metav1.Condition's pattern). */
const CONDITION_REASON_PATTERN = '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$';

function timestamp(description: string) {
  return Type.String({ description, format: 'date-time' });
}

function count(description: string, maximum: number) {
  return Type.Integer({ description, minimum: 0, maximum });
}

/** The Flux queue as the operator last read it, and the size changes it made (docs/elastic.md). */
export const AutoscaleStatusSchema = Type.Object(
  {
    queue: Type.Optional(
      Type.Object(
        {
          pending: count('Jobs waiting (NEW to SCHED).', MAX_INTEGER),
          running: count('Jobs running (RUN and CLEANUP).', MAX_INTEGER),
          nodesUp: count('Brokers online.', MAX_BROKERS),
          nodesDown: count('Listed brokers that are not online.', MAX_BROKERS),
          nodesAllocated: count('Online brokers with a job on them.', MAX_BROKERS),
          nodesDraining: count('Drained brokers that still run a job.', MAX_BROKERS),
          nodesDrained: count('Drained brokers with no job.', MAX_BROKERS),
        },
        {
          description:
            'The Flux queue as last read (written when a count changes, so a steady queue costs no write).',
          additionalProperties: false,
        },
      ),
    ),
    readError: Type.Optional(
      Type.String({
        description: 'Why the last read of the queue failed (cleared by a read that works).',
        maxLength: CONDITION_MESSAGE_MAX_LENGTH,
      }),
    ),
    scaleIn: Type.Optional(
      Type.Object(
        {
          fromSize: count('Brokers before the scale-in.', MAX_BROKERS),
          toSize: count('Brokers after it.', MAX_BROKERS),
          since: timestamp('When its ranks were drained.'),
        },
        {
          description:
            'A scale-in under way: its ranks are drained, the Job shrinks when no job runs on them.',
          additionalProperties: false,
        },
      ),
    ),
    drainedRanks: Type.Optional(
      Type.String({
        description:
          'Ranks the operator drained in Flux for a scale-in and has not undrained yet (an idset); undrained when a scale-up brings them back.',
        maxLength: 1024,
      }),
    ),
    lastChange: Type.Optional(
      Type.Object(
        {
          fromSize: count('Brokers before.', MAX_BROKERS),
          toSize: count('Brokers after.', MAX_BROKERS),
          reason: Type.String({ description: 'CamelCase reason.', maxLength: CONDITION_REASON_MAX_LENGTH }),
          message: Type.String({
            description: 'Why the size changed.',
            maxLength: CONDITION_MESSAGE_MAX_LENGTH,
          }),
          at: timestamp('When.'),
        },
        {
          description: 'The last size change the operator made or completed, and why.',
          additionalProperties: false,
        },
      ),
    ),
  },
  { description: 'Autoscaling and scale-in state.', additionalProperties: false },
);

export const ConditionSchema = Type.Object(
  {
    type: Type.String({
      description: 'Type of the condition in CamelCase, e.g. Ready.',
      minLength: 1,
      maxLength: CONDITION_TYPE_MAX_LENGTH,
      pattern: CONDITION_TYPE_PATTERN,
    }),
    status: stringEnum(['True', 'False', 'Unknown'], 'Status of the condition.'),
    observedGeneration: Type.Optional(
      Type.Integer({ description: 'metadata.generation the condition was computed from.', minimum: 0 }),
    ),
    lastTransitionTime: timestamp('When the status last changed.'),
    reason: Type.String({
      description: 'Why the condition has its status, in CamelCase; for machines.',
      minLength: 1,
      maxLength: CONDITION_REASON_MAX_LENGTH,
      pattern: CONDITION_REASON_PATTERN,
    }),
    message: Type.String({
      description: 'Why the condition has its status, for humans.',
      maxLength: CONDITION_MESSAGE_MAX_LENGTH,
    }),
  },
  {
    description: "One aspect of the MiniCluster's state (Kubernetes API conventions).",
    additionalProperties: false,
  },
);

export const StatusFieldsSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        description: "Latest observations of the MiniCluster's state, one per type.",
        maxItems: 32,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    observedGeneration: Type.Optional(
      Type.Integer({ description: 'metadata.generation the status was computed from.', minimum: 0 }),
    ),
    summary: Type.Optional(
      stringEnum(
        [...SUMMARIES],
        'One word for `kubectl get`, derived from the conditions; read the conditions, not this, in code.',
      ),
    ),
    size: Type.Optional(
      count("Current number of pods (brokers): the scale subresource's replicas.", MAX_BROKERS),
    ),
    readyPods: Type.Optional(count('Pods that are ready.', MAX_BROKERS)),
    maximumSize: Type.Optional(
      count(
        'Most pods the MiniCluster can grow to, fixed at creation (spec.maxSize, or spec.size when unset): scaling beyond it is refused.',
        MAX_BROKERS,
      ),
    ),
    selector: Type.Optional(
      Type.String({
        description: 'Label selector of the pods, for the scale subresource (`kubectl scale`, autoscalers).',
        maxLength: SHORT_STRING_MAX_LENGTH,
      }),
    ),
    jobName: Type.Optional(
      Type.String({
        description: 'Name of the indexed Job running the brokers.',
        maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
      }),
    ),
    leadBroker: Type.Optional(
      Type.Object(
        {
          service: Type.String({
            description: 'The Service exposing the lead broker.',
            maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
          }),
          address: Type.Optional(
            Type.String({
              description: 'Host name or IP address burst clusters connect to; unset until known.',
              maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
            }),
          ),
          port: Type.Optional(
            Type.Integer({ description: 'Port burst clusters connect to.', minimum: 1, maximum: 65535 }),
          ),
        },
        {
          description:
            "Where burst clusters reach this MiniCluster's lead broker (set when clusters are declared).",
          additionalProperties: false,
        },
      ),
    ),
    bursts: Type.Optional(
      Type.Array(
        Type.Object(
          {
            slot: Type.String({
              description: 'The burst slot it fills (spec.flux.bursting.clusters).',
              maxLength: 63,
            }),
            target: Type.String({ description: 'The burst target it runs on.', maxLength: 63 }),
            name: Type.String({ description: 'Name of the burst MiniCluster on the target.', maxLength: 63 }),
            namespace: Type.String({ description: 'Its namespace on the target.', maxLength: 63 }),
            size: count('Brokers it runs.', MAX_BROKERS),
            state: stringEnum(['Pending', 'Ready'], 'Pending until its brokers run, then Ready.'),
            createdAt: timestamp('When it was created.'),
            lastBusyAt: Type.Optional(timestamp('Last time burstable work needed it.')),
            idleSince: Type.Optional(
              timestamp(
                'When a read of the Flux queue first found no burstable work needing it, since it was created or last needed; it is removed idleSeconds after this.',
              ),
            ),
            jobs: Type.Optional(
              Type.Array(Type.String({ description: 'A Flux job id.', maxLength: 32 }), {
                description: 'The burstable jobs it was created for.',
                maxItems: MAX_BURST_RECORD_JOBS,
                'x-kubernetes-list-type': 'atomic',
              }),
            ),
          },
          { description: 'A burst cluster of this MiniCluster.', additionalProperties: false },
        ),
        {
          description: 'Burst clusters this MiniCluster created on burst targets.',
          maxItems: 32,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['slot'],
        },
      ),
    ),
    burstJobs: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({ description: 'The Flux job id.', maxLength: 32 }),
            reason: stringEnum(
              [...BURST_JOB_REASONS],
              'NoFreeCapacity: it could run, but not with the slots, budget and targets free now; any other: it can never run with this spec and policy (a JobCannotFit event says so once).',
            ),
            message: Type.String({
              description: 'Why, and what would let it run.',
              maxLength: CONDITION_MESSAGE_MAX_LENGTH,
            }),
          },
          { description: 'A burstable job no burst cluster serves.', additionalProperties: false },
        ),
        {
          description:
            'Burstable jobs waiting in the Flux queue that no burst cluster serves, and why (at most 32, by id).',
          maxItems: MAX_LISTED_BURST_JOBS,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['id'],
        },
      ),
    ),
    autoscale: Type.Optional(AutoscaleStatusSchema),
    startTime: Type.Optional(timestamp('When the Job started.')),
    completionTime: Type.Optional(timestamp('When the Job finished (bounded runs only).')),
  },
  { description: 'Observed state of the MiniCluster, written by the operator.', additionalProperties: false },
);

export type Condition = Static<typeof ConditionSchema>;
export type StatusFields = Static<typeof StatusFieldsSchema>;
export type Summary = (typeof SUMMARIES)[number];
