/**
 * Host names of the Flux instance: every broker is `<prefix>-<index>` (this MiniCluster, its burst
 * clusters, the lead broker it joins, the slot it fills, the boot server it connects to), and each
 * of them must be a DNS label listed once, or the brokers cannot find their rank. The CRD's CEL
 * rules for the same checks are in host-name-cel.ts.
 */
import { miniClusterNameProblems } from '../shared/minicluster-name.ts';
import type { Problem } from '../shared/problems.ts';
import { duplicates, hostNameLengthProblems } from '../shared/rule-helpers.ts';
import { DNS_1035_LABEL_PATTERN } from '../shared/schema-helpers.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';

const dns1035Label = new RegExp(DNS_1035_LABEL_PATTERN);

export const metadataName: SemanticRuleV1alpha1 = {
  name: 'metadata.name is a DNS label short enough for <name>-<index> host names',
  check: ({ name, spec }) => miniClusterNameProblems(name, spec.maxSize),
};

export const burstClusters: SemanticRuleV1alpha1 = {
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

export const ownSlot: SemanticRuleV1alpha1 = {
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

export const leadBrokerHosts: SemanticRuleV1alpha1 = {
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

export const bootServerHosts: SemanticRuleV1alpha1 = {
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
