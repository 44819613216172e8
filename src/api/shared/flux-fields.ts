/**
 * Schema of `spec.flux`: options of the Flux instance shared by every broker, bursting to other
 * clusters, and connecting to another MiniCluster.
 */
import { Type } from '@sinclair/typebox';
import {
  BROKER_CONFIG_MAX_LENGTH,
  CURVE_CERT_MAX_LENGTH,
  DEFAULT_BROKER_PORT,
  DNS_SUBDOMAIN_MAX_LENGTH,
  MAX_BROKERS,
  MAX_BURST_CLUSTERS,
  SHORT_STRING_MAX_LENGTH,
} from './limits.ts';
import {
  BURSTING_HOST_NAME_RULES,
  BURST_CLUSTER_LIST_RULES,
  FLUX_HOST_NAME_RULES,
  LEAD_BROKER_HOST_NAME_RULES,
} from './host-name-cel.ts';
import {
  ADDRESS_PATTERN,
  DURATION_PATTERN,
  absolutePath,
  boundedString,
  celRegex,
  celRules,
  derivedDefault,
  dns1035Label,
  objectName,
  stringEnum,
  withDefault,
} from './schema-helpers.ts';
import { SECRET_DATA_KEYS } from './secret-keys.ts';

/** Flux's `tbon.topo` values: `kary:K`, `binomial`, `mincrit` or `mincrit:K`. */
export const TOPOLOGY_PATTERN = '^(kary:[0-9]+|binomial|mincrit(:[0-9]+)?)$';

/**
 * An RFC 29 hostlist as Flux reads it: comma-separated hosts (printable ASCII but space, `,`, `[`
 * and `]`), each with at most one bracket of ids and id ranges. Whether it expands (ascending
 * ranges, one padding, distinct hosts) only the validator can tell: CEL cannot expand it.
 */
const HOST_CHARACTER = '[\\x21-\\x2b\\x2d-\\x5a\\x5c\\x5e-\\x7e]';
const HOST_TERM = `(${HOST_CHARACTER}*\\[[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*\\]${HOST_CHARACTER}*|${HOST_CHARACTER}+)`;
export const HOSTLIST_PATTERN = `^${HOST_TERM}(,${HOST_TERM})*$`;

/**
 * The public and secret keys of a zcert, as the validator and CEL (RE2) both read it: 40 Z85
 * characters each (printable ASCII without `"`).
 */
export const CURVE_CERT_PATTERN =
  'public-key[\\t\\n\\v\\f\\r ]*=[\\t\\n\\v\\f\\r ]*"[!#-~]{40}"[\\s\\S]*secret-key[\\t\\n\\v\\f\\r ]*=[\\t\\n\\v\\f\\r ]*"[!#-~]{40}"';

/** A flat broker tree: every broker's parent is rank 0 (Flux's `kary:0`). */
export const FLAT_TOPOLOGY = 'kary:0';

/** Queue policies of Fluxion's qmanager (`[sched-fluxion-qmanager] queue-policy`). */
export const QUEUE_POLICIES = ['fcfs', 'easy', 'hybrid', 'conservative'] as const;

function brokerCount(description: string) {
  return Type.Integer({ description, minimum: 1, maximum: MAX_BROKERS });
}

export const LeadBrokerSchema = Type.Object(
  {
    address: Type.String({
      description: "The lead broker's externally reachable host name or IP address.",
      minLength: 1,
      maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
      pattern: ADDRESS_PATTERN,
    }),
    name: dns1035Label("Name of the lead MiniCluster; its brokers' host names are `<name>-<index>`."),
    size: brokerCount('Size of the lead MiniCluster.'),
    port: withDefault(
      Type.Integer({ description: "The lead broker's external port.", minimum: 1, maximum: 65535 }),
      DEFAULT_BROKER_PORT,
    ),
  },
  {
    description:
      'Set on a MiniCluster that bursts from another one: the lead broker (rank 0) of the instance it joins. Unset on the lead MiniCluster.',
    additionalProperties: false,
    ...celRules(...LEAD_BROKER_HOST_NAME_RULES),
  },
);

export const BurstClusterSchema = Type.Object(
  {
    name: derivedDefault(
      dns1035Label(
        'Host name prefix of the burst cluster; its brokers are `<name>-<index>`. Default: `burst-<position in the list>`.',
      ),
    ),
    size: derivedDefault(
      brokerCount("Number of brokers in the burst cluster. Default: this MiniCluster's size."),
    ),
  },
  { description: 'A cluster this MiniCluster may burst to.', additionalProperties: false },
);

/** Kubernetes' default NodePort range. */
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

export const LeadBrokerExposureSchema = Type.Object(
  {
    type: withDefault(
      stringEnum(
        ['NodePort', 'LoadBalancer'],
        'Service type that makes the lead broker reachable from burst clusters: NodePort (any node address) or LoadBalancer (the cloud load balancer).',
      ),
      'NodePort',
    ),
    nodePort: Type.Optional(
      Type.Integer({
        description: 'With NodePort: the node port to use. Unset: Kubernetes picks one.',
        minimum: NODE_PORT_MIN,
        maximum: NODE_PORT_MAX,
      }),
    ),
  },
  {
    description:
      'The Service exposing the lead broker (pod index 0, port 8050) to burst clusters; its address is written to status.leadBroker. Rendered when clusters are declared.',
    additionalProperties: false,
    ...celRules({
      rule: "!has(self.nodePort) || !has(self.type) || self.type == 'NodePort'",
      message: 'nodePort applies to type NodePort only; remove nodePort or set type: NodePort',
      fieldPath: '.nodePort',
      reason: 'FieldValueForbidden',
    }),
  },
);

/** Most burst targets one MiniCluster may name. */
const MAX_BURST_TARGETS = 16;
const DEFAULT_IDLE_SECONDS = 600;
const DEFAULT_POLL_SECONDS = 10;

export const BurstTargetRefSchema = Type.Object(
  {
    name: dns1035Label('Name of the burst target (where burst clusters are created).'),
    costPerNodeHour: Type.Optional(
      Type.Number({
        description: 'Relative cost of a node-hour there; cheaper targets are tried first. Unset: 0.',
        minimum: 0,
      }),
    ),
    maxNodes: Type.Optional(
      Type.Integer({
        description: 'Most burst nodes on this target at once. Unset: no limit.',
        minimum: 0,
        maximum: MAX_BROKERS,
      }),
    ),
  },
  { description: 'A burst target this MiniCluster may use.', additionalProperties: false },
);

export const BurstPolicySchema = Type.Object(
  {
    maxBurstNodes: withDefault(
      Type.Integer({
        description: 'Most nodes in burst clusters at once, over all targets.',
        minimum: 0,
        maximum: MAX_BROKERS,
      }),
      MAX_BROKERS,
    ),
    idleSeconds: withDefault(
      Type.Integer({
        description: 'A burst cluster with no burstable work for this long is removed.',
        minimum: 0,
        maximum: 31_536_000,
      }),
      DEFAULT_IDLE_SECONDS,
    ),
    pollSeconds: withDefault(
      Type.Integer({
        description:
          'How often the operator reads the Flux queue of the lead broker (one exec into it): the delay between a burstable job waiting and its burst cluster being created.',
        minimum: 1,
        maximum: 3600,
      }),
      DEFAULT_POLL_SECONDS,
    ),
    targets: Type.Optional(
      Type.Array(BurstTargetRefSchema, {
        description:
          "Where to burst, tried by cost, then in this order. Unset: the MiniCluster's own cluster (in-cluster).",
        maxItems: MAX_BURST_TARGETS,
        ...celRules({
          rule: 'self.all(target, self.filter(other, other.name == target.name).size() == 1)',
          message: 'burst target names must be unique; remove the duplicates',
          reason: 'FieldValueDuplicate',
        }),
      }),
    ),
  },
  {
    description:
      'When and where to burst: jobs submitted with --setattr=burstable that wait for more nodes than are up make burst clusters in the declared slots.',
    additionalProperties: false,
  },
);

export const BurstingSchema = Type.Object(
  {
    leadBroker: Type.Optional(LeadBrokerSchema),
    slot: Type.Optional(
      dns1035Label(
        "With leadBroker: the lead MiniCluster's burst slot this MiniCluster fills; its pods are `<slot>-<index>`, the host names the lead lists. Default: this MiniCluster's name.",
      ),
    ),
    policy: Type.Optional(BurstPolicySchema),
    expose: Type.Optional(LeadBrokerExposureSchema),
    clusters: Type.Optional(
      Type.Array(BurstClusterSchema, {
        description:
          'Clusters to burst to, in rank order. Their hosts are listed in the broker config up front and show as down until they join.',
        maxItems: MAX_BURST_CLUSTERS,
        ...celRules(...BURST_CLUSTER_LIST_RULES),
      }),
    ),
    hostlist: Type.Optional(
      Type.String({
        description:
          'A Flux hostlist (e.g. `flux-sample-[0-3],burst-0-[0-3]`) replacing the generated one, for burst hosts that do not follow `<name>-<index>`. Lists every host of the instance, each once. Excludes clusters.',
        maxLength: SHORT_STRING_MAX_LENGTH * 4,
        pattern: HOSTLIST_PATTERN,
      }),
    ),
  },
  {
    description: 'Bursting: growing the Flux instance onto other clusters.',
    additionalProperties: false,
    ...celRules(
      {
        rule: '!has(self.hostlist) || !has(self.clusters) || self.clusters.size() == 0',
        message: 'hostlist replaces the hosts generated from clusters; set only one of hostlist and clusters',
        fieldPath: '.hostlist',
        reason: 'FieldValueForbidden',
      },
      {
        rule: '!has(self.slot) || has(self.leadBroker)',
        message: "slot names the lead MiniCluster's slot this one fills: it needs leadBroker",
        fieldPath: '.slot',
        reason: 'FieldValueForbidden',
      },
      ...BURSTING_HOST_NAME_RULES,
    ),
  },
);

export const SchedulerV1alpha1Schema = Type.Object(
  {
    queuePolicy: Type.Optional(
      stringEnum([...QUEUE_POLICIES], "Fluxion's queue policy. Unset: Fluxion's default (fcfs)."),
    ),
  },
  { description: 'Options of the Fluxion scheduler.', additionalProperties: false },
);

/** The Flux options both versions have: v1alpha1's `flux` is this, the hub's adds the view and more. */
export const BaseFluxSchema = Type.Object(
  {
    optionFlags: Type.Optional(
      boundedString(
        'Flux job options for the jobs the command makes (`flux submit`, `flux batch`), e.g. `-ompi=openmpi@5`; also exported to the lead broker as FLUX_OPTION_FLAGS. Not broker options: `flux start` refuses them.',
        SHORT_STRING_MAX_LENGTH,
      ),
    ),
    logLevel: withDefault(
      Type.Integer({
        description: 'Broker log level (`-Slog-stderr-level`): 0 emergencies only ... 7 debug.',
        minimum: 0,
        maximum: 7,
      }),
      6,
    ),
    connectTimeout: withDefault(
      Type.String({
        description:
          'How long a broker waits to connect to its parent (`-Stbon.connect_timeout`), e.g. 5s; raise it when DNS for new pods lags.',
        maxLength: 32,
        pattern: DURATION_PATTERN,
      }),
      '5s',
    ),
    wrap: Type.Optional(
      boundedString(
        'Comma-separated arguments for `flux start --wrap`, e.g. `strace,-e,network`.',
        SHORT_STRING_MAX_LENGTH,
      ),
    ),
    submitCommand: Type.Optional(
      boundedString(
        'Replaces `flux submit` when the command is submitted, e.g. `flux batch`.',
        SHORT_STRING_MAX_LENGTH,
      ),
    ),
    topology: Type.Optional(
      Type.String({
        description:
          'Shape of the broker tree (`-Stbon.topo`): `kary:K`, `binomial`, `mincrit` or `mincrit:K`.',
        maxLength: 32,
        pattern: TOPOLOGY_PATTERN,
      }),
    ),
    installRoot: withDefault(absolutePath('Prefix Flux is installed under in the image.'), '/usr'),
    curveCert: Type.Optional(
      boundedString(
        'A CURVE certificate (zcert text) for the overlay. Prefer curveCertSecret: this field is readable by anyone who can read the MiniCluster. Unset: the operator generates one.',
        CURVE_CERT_MAX_LENGTH,
      ),
    ),
    curveCertSecret: Type.Optional(
      objectName(
        `Name of an existing Secret holding the CURVE certificate under the key \`${SECRET_DATA_KEYS.curveCert}\`.`,
      ),
    ),
    mungeSecret: Type.Optional(
      objectName(
        `Name of an existing Secret holding the munge key under the key \`${SECRET_DATA_KEYS.mungeKey}\`. Unset: generated.`,
      ),
    ),
    brokerConfig: Type.Optional(
      boundedString('A complete broker.toml used instead of the generated one.', BROKER_CONFIG_MAX_LENGTH),
    ),
    minimalService: Type.Optional(
      Type.Boolean({
        description:
          'Only the lead broker (pod index 0) gets a DNS name: the headless Service selects it alone, and every other broker connects to it directly (a flat tree), so no broker needs another name. Fewer DNS records at scale; the workers cannot be reached by host name. Unset: false.',
      }),
    ),
    bursting: Type.Optional(BurstingSchema),
    scheduler: Type.Optional(SchedulerV1alpha1Schema),
    bootServer: Type.Optional(
      dns1035Label(
        "Connect to another MiniCluster: name of the MiniCluster (same namespace) whose Flux instance this one joins. Needs bootServerSize. Its brokers use that MiniCluster's generated CURVE certificate and munge key Secrets unless curveCertSecret / mungeSecret name others.",
      ),
    ),
    bootServerSize: Type.Optional(
      brokerCount(
        'Connect to another MiniCluster: size of the MiniCluster named in bootServer; its brokers come first in the shared host list.',
      ),
    ),
  },
  {
    description: 'Options of the Flux instance, shared by every broker.',
    additionalProperties: false,
    ...celRules(
      {
        rule: '!(has(self.curveCert) && has(self.curveCertSecret))',
        message: 'curveCert and curveCertSecret exclude each other; keep curveCertSecret',
        fieldPath: '.curveCert',
        reason: 'FieldValueForbidden',
      },
      {
        rule: `!has(self.curveCert) || self.curveCert.matches(${celRegex(CURVE_CERT_PATTERN)})`,
        message:
          'curveCert must be a ZeroMQ CURVE certificate (zcert text) with a 40-character public-key and secret-key; create one with `flux keygen`',
        fieldPath: '.curveCert',
        reason: 'FieldValueInvalid',
      },
      {
        rule: '!has(self.bursting) || !has(self.bursting.leadBroker) || has(self.curveCert) || has(self.curveCertSecret)',
        message:
          "bursting.leadBroker needs the lead MiniCluster's CURVE certificate: set curveCertSecret (or curveCert)",
        fieldPath: '.bursting.leadBroker',
        reason: 'FieldValueRequired',
      },
      {
        rule: '!has(self.bursting) || !has(self.bursting.leadBroker) || has(self.mungeSecret)',
        message: "bursting.leadBroker needs the lead MiniCluster's munge key: set mungeSecret",
        fieldPath: '.bursting.leadBroker',
        reason: 'FieldValueRequired',
      },
      {
        rule: 'has(self.bootServer) == has(self.bootServerSize)',
        message: 'bootServer and bootServerSize go together; set both or neither',
        fieldPath: '.bootServerSize',
        reason: 'FieldValueRequired',
      },
      {
        rule: '!has(self.bootServer) || !has(self.bursting) || !has(self.bursting.leadBroker)',
        message:
          'bootServer (connect in-cluster) and bursting.leadBroker (join from outside) exclude each other; set one',
        fieldPath: '.bootServer',
        reason: 'FieldValueForbidden',
      },
      {
        rule: `!has(self.minimalService) || !self.minimalService || !has(self.topology) || self.topology == '${FLAT_TOPOLOGY}'`,
        message: `topology must be ${FLAT_TOPOLOGY} (or unset) with minimalService: only the lead broker has a DNS name, so every broker connects to it; remove topology or minimalService`,
        fieldPath: '.topology',
        reason: 'FieldValueForbidden',
      },
      ...FLUX_HOST_NAME_RULES,
    ),
  },
);
