/**
 * The MiniCluster CRD's two honest states and the steps between them. Converting through a webhook
 * needs one that answers; until an operator serves one, an install leaves the CRD converting nothing
 * and serving only its storage version, so that a v1alpha1 manifest is refused as not served (404)
 * rather than failed by a webhook nobody serves (500) or stored unconverted (what strategy `None`
 * does to a version it serves). The operator turns it to its webhook once that answers.
 *
 * Both steps are JSON patches guarded by the resourceVersion read: served flags sit in a list, which a
 * merge patch would replace whole, and each step must change strategy and served flags at once.
 */
import { webhookConversion, type ConversionClientConfig } from '../../api/index.ts';

interface VersionLike {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
}

/** What these steps read of a CRD (a live one, or one about to be applied). */
export interface CrdConversionView {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
  readonly spec?: {
    readonly versions?: readonly VersionLike[];
    readonly conversion?: {
      readonly strategy?: string;
      readonly webhook?: { readonly clientConfig?: ConversionClientConfig };
    };
  };
  readonly status?: { readonly storedVersions?: readonly string[] };
}

export interface JsonPatchOperation {
  readonly op: 'test' | 'replace' | 'remove';
  readonly path: string;
  readonly value?: unknown;
}

export const JSON_PATCH = 'application/json-patch+json';

/** The version a CRD stores objects in. */
export function storageVersion(crd: CrdConversionView): string | undefined {
  return crd.spec?.versions?.find((version) => version.storage)?.name;
}

/** The names of the versions a CRD serves. */
export function servedVersions(crd: CrdConversionView): string[] {
  return (crd.spec?.versions ?? []).filter((version) => version.served).map((version) => version.name);
}

/** Converting through a webhook (the only strategy with anything to convert between two schemas). */
export function convertsThroughWebhook(crd: CrdConversionView): boolean {
  return crd.spec?.conversion?.strategy === 'Webhook';
}

/**
 * Whether the live CRD may be left converting nothing once it stores `storage` (the version of the
 * CRD applied over it): every object is stored as that version (status.storedVersions says so). One
 * stored in another version would be read back relabelled, not converted.
 */
export function storedOnlyAs(live: CrdConversionView, storage: string | undefined): boolean {
  const stored = live.status?.storedVersions ?? [];
  return storage !== undefined && stored.every((name) => name === storage);
}

/** `crd` converting nothing and serving its storage version alone (what an install without an operator applies). */
export function withoutWebhook<T extends object>(crd: T & CrdConversionView): T {
  const spec = crd.spec ?? {};
  return {
    ...crd,
    spec: {
      ...spec,
      versions: (spec.versions ?? []).map((version) => ({ ...version, served: version.storage })),
      conversion: { strategy: 'None' },
    },
  };
}

function guarded(live: CrdConversionView, operations: JsonPatchOperation[]): JsonPatchOperation[] {
  const resourceVersion = live.metadata?.resourceVersion;
  return [
    ...(resourceVersion
      ? [{ op: 'test' as const, path: '/metadata/resourceVersion', value: resourceVersion }]
      : []),
    ...operations,
  ];
}

/**
 * The step to the webhook: strategy Webhook to `clientConfig`, every version served. Undefined when
 * the live CRD already converts through a webhook, or has a single version (a CRD from before
 * v1alpha2: nothing to convert between, and nothing this operator can serve it).
 */
export function toWebhookPatch(
  live: CrdConversionView,
  clientConfig: ConversionClientConfig,
): JsonPatchOperation[] | undefined {
  const versions = live.spec?.versions ?? [];
  if (convertsThroughWebhook(live) || versions.length < 2) return undefined;
  return guarded(live, [
    { op: 'replace', path: '/spec/conversion', value: webhookConversion(clientConfig) },
    ...versions.flatMap((version, index) =>
      version.served ? [] : [{ op: 'replace' as const, path: `/spec/versions/${index}/served`, value: true }],
    ),
  ]);
}

/** The step away from a webhook: strategy None, the storage version alone served. */
export function toNoWebhookPatch(live: CrdConversionView): JsonPatchOperation[] {
  const versions = live.spec?.versions ?? [];
  return guarded(live, [
    { op: 'replace', path: '/spec/conversion', value: { strategy: 'None' } },
    ...versions.flatMap((version, index) =>
      version.served === version.storage
        ? []
        : [{ op: 'replace' as const, path: `/spec/versions/${index}/served`, value: version.storage }],
    ),
  ]);
}
