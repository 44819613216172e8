/**
 * Host names of the Flux instance: every broker is `<prefix>-<index>` (this MiniCluster, its burst
 * clusters, the lead broker it joins, the slot it fills, the boot server it connects to), and each
 * of them must be a DNS label listed once, or the brokers cannot find their rank. The validator's
 * rules and the CRD's CEL rules for the same checks sit side by side.
 */
import { DNS_1035_LABEL_PATTERN, celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import type { Problem } from './problems.ts';
import { celHostNamesFit, duplicates, hostNameLengthProblems } from './rule-helpers.ts';
import type { SemanticRule } from './rule-helpers.ts';

const dns1035Label = new RegExp(DNS_1035_LABEL_PATTERN);

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

/**
 * What is wrong with `name` as the name of a MiniCluster of up to `maxSize` brokers; `path` says
 * where the name came from (`flux-operator keygen --name` checks its flag with the same rule).
 */
export function miniClusterNameProblems(name: string, maxSize: number, path = 'metadata.name'): Problem[] {
  if (!dns1035Label.test(name)) {
    return [
      {
        path,
        message: `must be a DNS label (lowercase letters, digits and "-", starting with a letter, ending with a letter or digit), since pod host names and the Service derive from it; got ${JSON.stringify(name)}`,
      },
    ];
  }
  return hostNameLengthProblems(path, name, maxSize, 'the name');
}

export const metadataName: SemanticRule = {
  name: 'metadata.name is a DNS label short enough for <name>-<index> host names',
  check: ({ name, spec }) => miniClusterNameProblems(name, spec.maxSize),
};

export const burstClusters: SemanticRule = {
  name: 'burst clusters: hostlist or clusters, unique DNS-safe names distinct from local hosts',
  check: ({ name, spec }) => {
    const bursting = spec.flux.bursting;
    if (bursting === undefined) return [];
    const problems: Problem[] = [];
    const clusters = bursting.clusters ?? [];
    if (bursting.hostlist !== undefined && clusters.length > 0) {
      problems.push({
        path: 'spec.flux.bursting.hostlist',
        message: 'replaces the hosts generated from clusters; set only one of hostlist and clusters',
      });
    }
    // The lead side lists its own hosts before the burst clusters, so a cluster named like it would
    // collide. On the external side (leadBroker set) the cluster named like this MiniCluster is its
    // own slot in the shared list; only the lead's name is taken there.
    const takenPrefixes = bursting.leadBroker === undefined ? [name] : [bursting.leadBroker.name];
    if (bursting.slot !== undefined && bursting.leadBroker === undefined) {
      problems.push({
        path: 'spec.flux.bursting.slot',
        message: "needs leadBroker: it names the lead MiniCluster's slot this one fills",
      });
    }
    clusters.forEach((cluster, index) => {
      const path = `spec.flux.bursting.clusters[${index}].name`;
      if (!dns1035Label.test(cluster.name)) {
        problems.push({
          path,
          message: `must be a DNS label starting with a letter; got ${JSON.stringify(cluster.name)}`,
        });
        return;
      }
      if (takenPrefixes.includes(cluster.name)) {
        problems.push({
          path,
          message: `${JSON.stringify(cluster.name)} is already a host name prefix of this instance, so host names would collide; rename the burst cluster`,
        });
      }
      problems.push(...hostNameLengthProblems(path, cluster.name, cluster.size, 'the burst cluster name'));
    });
    for (const { index, firstIndex } of duplicates(clusters, (cluster) => cluster.name)) {
      problems.push({
        path: `spec.flux.bursting.clusters[${index}].name`,
        message: `duplicates spec.flux.bursting.clusters[${firstIndex}].name ${JSON.stringify(clusters[index]?.name)} (unnamed clusters are burst-<index>); burst cluster names must be unique`,
      });
    }
    return problems;
  },
};

export const ownSlot: SemanticRule = {
  name: 'the external side of a burst fits its pods in its slot',
  check: ({ name, spec }) => {
    const bursting = spec.flux.bursting;
    if (bursting?.leadBroker === undefined) return [];
    const problems: Problem[] = [];
    const slot = bursting.slot ?? name;
    if (bursting.slot !== undefined) {
      problems.push(
        ...hostNameLengthProblems('spec.flux.bursting.slot', bursting.slot, spec.maxSize, 'the slot name'),
      );
      if (bursting.slot === bursting.leadBroker.name) {
        problems.push({
          path: 'spec.flux.bursting.slot',
          message:
            'equals leadBroker.name, so host names would collide; name the slot this MiniCluster fills',
        });
      }
    }
    (bursting.clusters ?? []).forEach((cluster, index) => {
      if (cluster.name === slot && cluster.size < spec.maxSize) {
        problems.push({
          path: `spec.flux.bursting.clusters[${index}].size`,
          message: `is ${cluster.size}, but this MiniCluster fills that slot (${JSON.stringify(slot)}) with up to spec.maxSize (${spec.maxSize}) pods, and pods beyond the slot would have no rank; raise it or lower maxSize`,
        });
      }
    });
    return problems;
  },
};

export const leadBrokerHosts: SemanticRule = {
  name: 'the lead broker has a name of its own that fits its host names',
  check: ({ name, spec }) => {
    const lead = spec.flux.bursting?.leadBroker;
    if (lead === undefined) return [];
    const path = 'spec.flux.bursting.leadBroker.name';
    const problems: Problem[] = [];
    if (lead.name === name) {
      problems.push({
        path,
        message: `equals this MiniCluster's name, so host names would collide; a bursting MiniCluster needs its own name`,
      });
    }
    problems.push(...hostNameLengthProblems(path, lead.name, lead.size, 'the lead MiniCluster name'));
    return problems;
  },
};

export const bootServerHosts: SemanticRule = {
  name: 'the boot server is another MiniCluster whose host names fit',
  check: ({ name, spec }) => {
    const { bootServer: server, bootServerSize } = spec.flux;
    if (server === undefined) return [];
    const problems: Problem[] = [];
    if (server === name) {
      problems.push({
        path: 'spec.flux.bootServer',
        message: 'names this MiniCluster itself; name the MiniCluster to connect to',
      });
    }
    if (bootServerSize !== undefined) {
      problems.push(
        ...hostNameLengthProblems('spec.flux.bootServer', server, bootServerSize, 'the boot server name'),
      );
    }
    return problems;
  },
};
