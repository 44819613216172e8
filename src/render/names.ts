import { createHash } from 'node:crypto';
import type { DefaultedMiniCluster } from './model.ts';

/** Kubernetes DNS labels (RFC 1123) are at most 63 characters. */
export const DNS_LABEL_MAX = 63;
const HASH_LENGTH = 8;

/**
 * Joins parts into a name that is a valid DNS label. A name that would be too long keeps its
 * beginning and gets a short hash of the full name, so it stays stable and distinct (cdk8s style).
 * `reserve` keeps room for a suffix added later by Kubernetes (e.g. `-<index>` on Job pods).
 */
export function dnsLabel(parts: readonly string[], reserve = 0): string {
  const full = parts.filter((part) => part.length > 0).join('-');
  const limit = DNS_LABEL_MAX - reserve;
  if (full.length <= limit) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_LENGTH);
  const head = full.slice(0, limit - HASH_LENGTH - 1).replace(/-+$/, '');
  return `${head}-${hash}`;
}

/** The namespace of the MiniCluster is that of every object rendered for it. */
export { namespaceOf } from '../api/index.ts';

/** Names of every object rendered for one MiniCluster. */
export interface MiniClusterNames {
  /** The indexed Job; its pods' hostnames are `<job>-<index>`, which Flux matches against broker.toml. */
  readonly job: string;
  readonly service: string;
  /** The Service exposing the lead broker to burst clusters (local side of bursting only). */
  readonly leadBrokerService: string;
  readonly configMap: string;
  /** The RESTful API's Service (lead pod only) and the Secret of its credentials (same name). */
  readonly restful: string;
  /**
   * The services pod's Deployment and the pod's host name (v1alpha1's `<name>-services`), so it
   * resolves as `<services>.<service>.<namespace>.svc`.
   */
  readonly services: string;
  /**
   * The Secret holding the curve certificate: the user's curveCertSecret, the generated one, or (with
   * bootServer) the one generated for the boot server.
   */
  readonly curveCertSecret: string;
  /** The Secret holding the munge key: the user's mungeSecret, the generated one, or the boot server's. */
  readonly mungeKeySecret: string;
  /** Whether the operator generates (and owns) each Secret here, or mounts one made elsewhere. */
  readonly generatesCurveCertSecret: boolean;
  readonly generatesMungeKeySecret: boolean;
}

/** The lead's slot a burst cluster fills, when it names one. */
export function burstSlotOf(miniCluster: DefaultedMiniCluster): string | undefined {
  const bursting = miniCluster.spec.flux.bursting;
  return bursting?.leadBroker !== undefined ? bursting.slot : undefined;
}

/**
 * Whose generated key Secrets this MiniCluster mounts: its own, or, when it joins another
 * MiniCluster's instance in this namespace (`bootServer`), that one's. Every broker of an instance
 * needs the same CURVE certificate and munge key (with its own, a joining broker hangs in join with
 * nothing logged), so a connecting MiniCluster makes none and waits for the boot server's.
 */
function keyOwner(miniCluster: DefaultedMiniCluster): string {
  return miniCluster.spec.flux.bootServer ?? miniCluster.metadata.name;
}

export function miniClusterNames(miniCluster: DefaultedMiniCluster): MiniClusterNames {
  const { name } = miniCluster.metadata;
  const { flux } = miniCluster.spec;
  const owner = keyOwner(miniCluster);
  // An inline curveCert is this MiniCluster's own certificate: it goes into a Secret of its own.
  const ownCurveCert = flux.curveCertSecret === undefined && (owner === name || flux.curveCert !== undefined);
  const ownMungeKey = flux.mungeSecret === undefined && owner === name;
  return {
    // The Job keeps the MiniCluster's name exactly (validation keeps `<name>-<index>` a label), except
    // on a burst cluster filling a named slot: its pods must carry the host names the lead lists.
    job: burstSlotOf(miniCluster) ?? name,
    service: miniCluster.spec.network.headlessName,
    leadBrokerService: dnsLabel([name, 'lead-broker']),
    configMap: dnsLabel([name, 'flux-config']),
    services: dnsLabel([name, 'services']),
    restful: dnsLabel([name, 'restful']),
    curveCertSecret: flux.curveCertSecret ?? dnsLabel([ownCurveCert ? name : owner, 'curve-cert']),
    mungeKeySecret: flux.mungeSecret ?? dnsLabel([owner, 'munge-key']),
    generatesCurveCertSecret: ownCurveCert,
    generatesMungeKeySecret: ownMungeKey,
  };
}
