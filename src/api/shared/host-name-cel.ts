/**
 * Host names: the CEL rules the CRD carries, twins of the validator's rules in host-name-rules.ts. The
 * schema takes these and the rules take the schema's types, so the two halves live apart.
 */
import { celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import { celHostNamesFit } from './rule-helpers.ts';

/**
 * An unnamed burst cluster is `burst-<index>`. CEL has no index in its list macros, so a name of
 * that form is looked up at its index instead; the list is short (MAX_BURST_CLUSTERS), so two
 * digits cover every index.
 */
const DEFAULT_CLUSTER_NAME = '^burst-(0|[1-9][0-9]?)$';

function celDefaultIndex(name: string): string {
  return `int(${name}.substring(6))`;
}

/** CEL: `name` is a defaulted name of one of `clusters`, and that cluster is unnamed. */
function celUnnamedClusterCalled(clusters: string, name: string): string {
  const index = celDefaultIndex(name);
  return `(${name}.matches(${celRegex(DEFAULT_CLUSTER_NAME)}) && ${index} < ${clusters}.size() && !has(${clusters}[${index}].name))`;
}

/** CEL: some cluster of `clusters`, once defaulted, is called `name`. */
function celClusterCalled(clusters: string, name: string): string {
  return `(${clusters}.exists(cluster, has(cluster.name) && cluster.name == ${name}) || ${celUnnamedClusterCalled(clusters, name)})`;
}

const SPEC = 'self.spec';
const BURSTING = `${SPEC}.flux.bursting`;
const HAS_BURSTING = `has(${SPEC}.flux) && has(${BURSTING})`;
const MAX_SIZE = `(has(${SPEC}.maxSize) ? ${SPEC}.maxSize : ${SPEC}.size)`;
const OWN_SLOT = `(has(${BURSTING}.slot) ? ${BURSTING}.slot : self.metadata.name)`;

function celClusterSize(cluster: string, spec: string): string {
  return `(has(${cluster}.size) ? ${cluster}.size : ${spec}.size)`;
}

/** Rules on the MiniCluster (they read metadata.name). */
export const ROOT_HOST_NAME_RULES: CelRule[] = [
  {
    // The lead side lists its own hosts before the burst clusters'.
    rule: `!(${HAS_BURSTING}) || has(${BURSTING}.leadBroker) || !has(${BURSTING}.clusters) || !${celClusterCalled(`${BURSTING}.clusters`, 'self.metadata.name')}`,
    message:
      'a burst cluster is named like this MiniCluster (unnamed clusters are burst-<index>), so host names would collide; rename the burst cluster',
    fieldPath: '.spec.flux.bursting.clusters',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `!(${HAS_BURSTING}) || !has(${BURSTING}.leadBroker) || ${BURSTING}.leadBroker.name != self.metadata.name`,
    message:
      "spec.flux.bursting.leadBroker.name equals this MiniCluster's name, so host names would collide; a bursting MiniCluster needs its own name",
    fieldPath: '.spec.flux.bursting.leadBroker.name',
    reason: 'FieldValueInvalid',
  },
  {
    // The external side fills its own slot with pods up to maxSize: the slot must list them all.
    rule: `!(${HAS_BURSTING}) || !has(${BURSTING}.leadBroker) || !has(${BURSTING}.clusters) || (${BURSTING}.clusters.all(cluster, !has(cluster.name) || cluster.name != ${OWN_SLOT} || ${celClusterSize('cluster', SPEC)} >= ${MAX_SIZE}) && (!${celUnnamedClusterCalled(`${BURSTING}.clusters`, OWN_SLOT)} || ${celClusterSize(`${BURSTING}.clusters[${celDefaultIndex(OWN_SLOT)}]`, SPEC)} >= ${MAX_SIZE}))`,
    message:
      "the burst cluster this MiniCluster fills (its slot, or its name) lists fewer hosts than spec.maxSize (or size), so some pods would have no rank; raise that cluster's size or lower maxSize",
    fieldPath: '.spec.flux.bursting.clusters',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `!has(${SPEC}.flux) || !has(${SPEC}.flux.bootServer) || ${SPEC}.flux.bootServer != self.metadata.name`,
    message: 'spec.flux.bootServer names this MiniCluster itself; name the MiniCluster to connect to',
    fieldPath: '.spec.flux.bootServer',
    reason: 'FieldValueInvalid',
  },
];

/** Rules on the spec (they read size and maxSize). */
export const SPEC_HOST_NAME_RULES: CelRule[] = [
  {
    rule: `!has(self.flux) || !has(self.flux.bursting) || !has(self.flux.bursting.clusters) || self.flux.bursting.clusters.all(cluster, !has(cluster.name) || ${celHostNamesFit('cluster.name', celClusterSize('cluster', 'self'))})`,
    message:
      'a burst cluster name is too long: host names <name>-<index> up to its size-1 must fit in 63 characters; shorten it',
    fieldPath: '.flux.bursting.clusters',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `!has(self.flux) || !has(self.flux.bursting) || !has(self.flux.bursting.slot) || ${celHostNamesFit('self.flux.bursting.slot', '(has(self.maxSize) ? self.maxSize : self.size)')}`,
    message:
      'spec.flux.bursting.slot is too long: pod host names <slot>-<index> up to maxSize-1 must fit in 63 characters; shorten it',
    fieldPath: '.flux.bursting.slot',
    reason: 'FieldValueInvalid',
  },
];

/** Rules on spec.flux.bursting. */
export const BURSTING_HOST_NAME_RULES: CelRule[] = [
  {
    rule: `!has(self.leadBroker) || !has(self.clusters) || !${celClusterCalled('self.clusters', 'self.leadBroker.name')}`,
    message:
      'a burst cluster is named like leadBroker.name (unnamed clusters are burst-<index>), so host names would collide; rename the burst cluster',
    fieldPath: '.clusters',
    reason: 'FieldValueInvalid',
  },
  {
    rule: '!has(self.slot) || !has(self.leadBroker) || self.slot != self.leadBroker.name',
    message: 'slot equals leadBroker.name, so host names would collide; name the slot this MiniCluster fills',
    fieldPath: '.slot',
    reason: 'FieldValueInvalid',
  },
];

/** Rules on spec.flux.bursting.clusters. */
export const BURST_CLUSTER_LIST_RULES: CelRule[] = [
  {
    rule: 'self.all(cluster, !has(cluster.name) || self.filter(other, has(other.name) && other.name == cluster.name).size() == 1)',
    message: 'burst cluster names must be unique; rename the duplicates',
    reason: 'FieldValueDuplicate',
  },
  {
    rule: `self.all(cluster, !has(cluster.name) || !${celUnnamedClusterCalled('self', 'cluster.name')})`,
    message:
      'a burst cluster is named burst-<index> of an unnamed cluster at that index (its default name); rename it',
    reason: 'FieldValueDuplicate',
  },
];

/** Rules on spec.flux.bursting.leadBroker. */
export const LEAD_BROKER_HOST_NAME_RULES: CelRule[] = [
  {
    rule: celHostNamesFit('self.name', 'self.size'),
    message: 'name is too long: host names <name>-<index> up to size-1 must fit in 63 characters; shorten it',
    fieldPath: '.name',
    reason: 'FieldValueInvalid',
  },
];

/** Rules on spec.flux. */
export const FLUX_HOST_NAME_RULES: CelRule[] = [
  {
    rule: `!has(self.bootServer) || !has(self.bootServerSize) || ${celHostNamesFit('self.bootServer', 'self.bootServerSize')}`,
    message:
      'bootServer is too long: host names <bootServer>-<index> up to bootServerSize-1 must fit in 63 characters',
    fieldPath: '.bootServer',
    reason: 'FieldValueInvalid',
  },
];
