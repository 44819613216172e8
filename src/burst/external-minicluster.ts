/**
 * The MiniCluster (and the Secrets it mounts) that fills one burst slot of a local MiniCluster on a
 * burst target. Pure: from the local MiniCluster, the slot, the size and where its lead broker is
 * reachable. Its brokers join the local instance: same host list order, same certificate, same
 * munge key (copied as Secrets, never inline), the lead broker under its external address.
 */
import { createHash } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import {
  API_VERSION_V1ALPHA1,
  KIND,
  LABEL_MANAGED_BY,
  LABEL_QUEUE_NAME,
  MANAGED_BY,
  SECRET_DATA_KEYS,
  defaultMiniClusterV1alpha1,
  defaultedToV1alpha2,
  type DefaultedContainerV1alpha1,
  type DefaultedMiniClusterV1alpha1,
  type MiniClusterV1alpha1,
} from '../api/index.ts';
import { brokerConfigText } from '../render/config-map.ts';
import { dnsLabel, miniClusterNames } from '../render/names.ts';
import { validateMiniClusterV1alpha1 } from '../api/index.ts';
import { namespaceOf, namespacedName } from '../api/index.ts';
import {
  V1ALPHA1_RESIDUE_ANNOTATION,
  toV1alpha1,
  toV1alpha2,
  validateMiniCluster,
  type DefaultedFluxSpec,
  type DefaultedMiniCluster,
  type MiniCluster,
} from '../api/index.ts';

/** The MiniCluster (by uid) a remote object was made for; the orphan collector reads it. */
export const LABEL_BURST_ORIGIN_UID = 'flux-framework.org/burst-origin-uid';
/** The slot of the local MiniCluster a burst cluster fills. */
export const LABEL_BURST_SLOT = 'flux-framework.org/burst-slot';
/** The cluster of the local MiniCluster (its kube-system namespace's uid): orphans are judged per origin cluster. */
export const LABEL_BURST_ORIGIN_CLUSTER = 'flux-framework.org/burst-origin-cluster';
/** Hash of the burst cluster's broker config: what defines it. */
export const LABEL_BURST_CONFIG_HASH = 'flux-framework.org/burst-config-hash';
/** `<namespace>/<name>` of the local MiniCluster, for people (label values cannot hold a slash). */
export const ANNOTATION_BURST_ORIGIN = 'flux-framework.org/burst-origin';

const HASH_LENGTH = 10;
/** Room for `-<index>` of the pods, which validation keeps inside a DNS label. */
const POD_INDEX_RESERVE = 6;

export interface ExternalMiniClusterRequest {
  readonly local: DefaultedMiniClusterV1alpha1;
  /** One of the local spec.flux.bursting.clusters. */
  readonly slot: string;
  /** Brokers to start there (at most the slot's size). */
  readonly size: number;
  /** Where brokers outside the local cluster reach the lead broker (status.leadBroker). */
  readonly leadBroker: { readonly address: string; readonly port: number };
  /** Namespace on the burst target. */
  readonly namespace: string;
  /**
   * Kueue's queue on the burst target (BurstTarget spec.queueName): the burst MiniCluster carries it
   * as its queue-name label, so its Job waits there and starts as a whole (docs/kueue.md).
   */
  readonly queueName?: string;
  /** Identity of the local cluster (kube-system's uid), if known. */
  readonly originCluster?: string;
  /**
   * The burst target is the local MiniCluster's own cluster: its brokers mount the local key Secrets
   * themselves (no copies) and keep the local pod placement (nodeSelector, tolerations, ...), which
   * means the same nodes there. On another cluster both would be wrong, so neither is carried.
   */
  readonly sameCluster?: boolean;
  /**
   * The local MiniCluster's Flux view (v1alpha2's `flux.container`), when its Flux comes from one:
   * the burst brokers run the same Flux the same way, so the burst MiniCluster is a v1alpha2 one.
   */
  readonly fluxView?: DefaultedFluxSpec['container'];
}

export interface ExternalMiniCluster {
  readonly name: string;
  readonly configHash: string;
  readonly miniCluster: MiniClusterV1alpha1 | MiniCluster;
  /** Names of the Secrets the burst MiniCluster mounts; `secretsFor` fills them. */
  readonly secretNames: { readonly curveCert: string; readonly mungeKey: string };
}

/** What a burst broker needs of the local container; local-only references (volumes, pull secrets) stay behind. */
function burstContainer(
  container: DefaultedContainerV1alpha1,
): MiniClusterV1alpha1['spec']['containers'][number] {
  const copy: MiniClusterV1alpha1['spec']['containers'][number] = {
    name: container.name,
    image: container.image,
    runFlux: container.runFlux,
    fluxUser: { ...container.fluxUser },
    pullAlways: container.pullAlways,
    commands: { ...container.commands },
  };
  if (container.workingDir !== undefined) copy.workingDir = container.workingDir;
  if (container.environment !== undefined) copy.environment = { ...container.environment };
  if (container.resources !== undefined) copy.resources = structuredClone(container.resources);
  if (container.cores !== undefined) copy.cores = container.cores;
  if (container.securityContext !== undefined)
    copy.securityContext = structuredClone(container.securityContext);
  return copy;
}

/**
 * The local MiniCluster as the burst builder takes it: in v1alpha1's words, and what v1alpha1 cannot
 * say, Flux from a view, beside it.
 */
export function burstLocal(
  model: DefaultedMiniCluster,
): Pick<ExternalMiniClusterRequest, 'local' | 'fluxView'> {
  const local = defaultMiniClusterV1alpha1(toV1alpha1(model) as unknown as MiniClusterV1alpha1);
  const view = model.spec.flux.container;
  return view.disable ? { local } : { local, fluxView: view };
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

export function externalMiniCluster(request: ExternalMiniClusterRequest): ExternalMiniCluster {
  const { local, slot, size } = request;
  const bursting = local.spec.flux.bursting;
  const slots = bursting?.clusters ?? [];
  const declared = slots.find((candidate) => candidate.name === slot);
  if (!declared)
    throw new Error(`slot ${slot} is not declared in spec.flux.bursting.clusters of ${local.metadata.name}`);
  if (!Number.isInteger(size) || size < 1 || size > declared.size) {
    throw new Error(`a burst cluster for slot ${slot} holds 1 to ${declared.size} brokers, not ${size}`);
  }
  const localNames = miniClusterNames(defaultedToV1alpha2(local));
  const secretNames = request.sameCluster
    ? { curveCert: localNames.curveCertSecret, mungeKey: localNames.mungeKeySecret }
    : {
        curveCert: dnsLabel([local.metadata.name, 'curve-cert']),
        mungeKey: dnsLabel([local.metadata.name, 'munge-key']),
      };
  const flux = local.spec.flux;
  const spec: MiniClusterV1alpha1['spec'] = {
    size,
    maxSize: declared.size,
    interactive: true,
    deadlineSeconds: local.spec.deadlineSeconds,
    containers: local.spec.containers.filter((container) => container.runFlux).map(burstContainer),
    logging: { ...local.spec.logging },
    // Named after the slot, like its pods: independent of the (hashed) MiniCluster name.
    network: { headlessName: slot },
    flux: {
      logLevel: flux.logLevel,
      connectTimeout: flux.connectTimeout,
      installRoot: flux.installRoot,
      curveCertSecret: secretNames.curveCert,
      mungeSecret: secretNames.mungeKey,
      bursting: {
        leadBroker: {
          address: request.leadBroker.address,
          name: localNames.job,
          size: local.spec.maxSize,
          port: request.leadBroker.port,
        },
        slot,
        clusters: slots.map((candidate) => ({ name: candidate.name, size: candidate.size })),
      },
    },
  };
  if (request.sameCluster && local.spec.pod !== undefined) spec.pod = structuredClone(local.spec.pod);
  if (flux.optionFlags !== undefined) spec.flux = { ...spec.flux, optionFlags: flux.optionFlags };
  if (flux.topology !== undefined) spec.flux = { ...spec.flux, topology: flux.topology };

  // The name comes from the broker config, which does not depend on the name: the same request gives
  // the same MiniCluster, a changed one (other address, other slots) a new one.
  const draft: MiniClusterV1alpha1 = {
    apiVersion: API_VERSION_V1ALPHA1,
    kind: KIND,
    metadata: { name: 'draft', namespace: request.namespace },
    spec,
  };
  const validated = validateMiniClusterV1alpha1(draft);
  if (!validated.ok) {
    throw new Error(
      `the burst MiniCluster for slot ${slot} is invalid: ${validated.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    );
  }
  const model = defaultedToV1alpha2(validated.value);
  const configHash = hashOf(brokerConfigText(model, miniClusterNames(model)));
  const name = dnsLabel([local.metadata.name, slot, configHash], POD_INDEX_RESERVE);
  const miniCluster: MiniClusterV1alpha1 = {
    ...draft,
    metadata: {
      name,
      namespace: request.namespace,
      labels: {
        [LABEL_MANAGED_BY]: MANAGED_BY,
        [LABEL_BURST_ORIGIN_UID]: local.metadata.uid ?? '',
        ...(request.originCluster ? { [LABEL_BURST_ORIGIN_CLUSTER]: request.originCluster } : {}),
        [LABEL_BURST_SLOT]: slot,
        [LABEL_BURST_CONFIG_HASH]: configHash,
        ...(request.queueName === undefined ? {} : { [LABEL_QUEUE_NAME]: request.queueName }),
      },
      annotations: {
        [ANNOTATION_BURST_ORIGIN]: namespacedName(local),
      },
    },
  };
  return {
    name,
    configHash,
    secretNames,
    miniCluster: request.fluxView === undefined ? miniCluster : withFluxView(miniCluster, request.fluxView),
  };
}

/**
 * The burst MiniCluster as v1alpha2 with the local Flux view: what v1alpha1 says of it, converted,
 * and Flux from the same view (the conversion says "Flux in the image", v1alpha1's only way).
 */
function withFluxView(
  miniCluster: MiniClusterV1alpha1,
  fluxView: DefaultedFluxSpec['container'],
): MiniCluster {
  const converted = toV1alpha2(miniCluster) as unknown as MiniCluster;
  // Written as v1alpha2 and never read back as v1alpha1: no residue of a v1alpha1 form to keep.
  const { [V1ALPHA1_RESIDUE_ANNOTATION]: _residue, ...annotations } = converted.metadata?.annotations ?? {};
  const result = {
    ...converted,
    metadata: { ...converted.metadata, annotations },
    spec: { ...converted.spec, flux: { ...converted.spec.flux, container: structuredClone(fluxView) } },
  } as MiniCluster;
  const validated = validateMiniCluster(result);
  if (!validated.ok) {
    throw new Error(
      `the burst MiniCluster ${miniCluster.metadata.name} with the local Flux view is invalid: ${validated.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    );
  }
  return result;
}

/** Copies of the local key Secrets' data for the burst target, labelled with their origin. */
export function burstSecrets(
  external: ExternalMiniCluster,
  local: DefaultedMiniClusterV1alpha1,
  data: { readonly curveCert: string; readonly mungeKey: string },
): (V1Secret & { metadata: { name: string } })[] {
  const originCluster = external.miniCluster.metadata.labels?.[LABEL_BURST_ORIGIN_CLUSTER];
  const labels = {
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_BURST_ORIGIN_UID]: local.metadata.uid ?? '',
    ...(originCluster ? { [LABEL_BURST_ORIGIN_CLUSTER]: originCluster } : {}),
  };
  const annotations = {
    [ANNOTATION_BURST_ORIGIN]: namespacedName(local),
  };
  const namespace = namespaceOf(external.miniCluster);
  return [
    { name: external.secretNames.curveCert, key: SECRET_DATA_KEYS.curveCert, value: data.curveCert },
    { name: external.secretNames.mungeKey, key: SECRET_DATA_KEYS.mungeKey, value: data.mungeKey },
  ].map(({ name, key, value }) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels, annotations },
    type: 'Opaque',
    immutable: true,
    // base64 already: copied as read from the local Secret, never decoded on the way.
    data: { [key]: value },
  }));
}
