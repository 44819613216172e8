// Kueue's install objects as its module's config/ folder describes them, made fit for a Kueue that runs
// on this host: what kustomize makes of config/default (the name prefix, the namespace, the CRDs' and
// webhooks' patches), with the webhook Service of every client config swapped for a loopback URL, since
// the API server runs on this host too. Pure functions over the files' texts (module.ts reads them).
import { parseAllDocuments } from 'yaml';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface Kustomization {
  namespace?: string;
  namePrefix?: string;
  resources: string[];
  /** File patches (`path`) and inline ones (`patch`). */
  patches: { path?: string; patch?: string }[];
}

/** Where the API server reaches Kueue's webhook server, and the CA that signed its certificate. */
export interface WebhookEndpoint {
  /** `https://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  /** The CA's PEM, base64-encoded, as webhook client configs carry it. */
  readonly caBundle: string;
}

/** How config/default names and places what it installs. */
export interface Placement {
  readonly namePrefix: string;
  readonly namespace: string;
}

interface ClientConfig {
  service?: { path?: string };
  url?: string;
  caBundle?: string;
}

interface Webhook {
  name: string;
  clientConfig?: ClientConfig;
  [key: string]: unknown;
}

type Loose = Record<string, unknown>;

export function parseKustomization(text: string): Kustomization {
  const doc = (parseAllDocuments(text)[0]?.toJS() ?? {}) as Partial<Kustomization>;
  return {
    ...(doc.namespace === undefined ? {} : { namespace: doc.namespace }),
    ...(doc.namePrefix === undefined ? {} : { namePrefix: doc.namePrefix }),
    resources: doc.resources ?? [],
    patches: doc.patches ?? [],
  };
}

/** The objects of a multi-document YAML text (empty documents and comments-only ones left out). */
export function parseObjects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => typeof o?.kind === 'string' && typeof o.metadata?.name === 'string');
}

/** A service client config as the API server reaches a webhook of this host: the same path, on loopback. */
export function loopbackClientConfig(config: ClientConfig | undefined, endpoint: WebhookEndpoint) {
  return { url: `${endpoint.url}${config?.service?.path ?? '/'}`, caBundle: endpoint.caBundle };
}

/**
 * The CRDs with the conversion of their patches (matched by name), pointing at the loopback webhook;
 * CRDs without a patch keep the conversion they have.
 */
export function customResourceDefinitions(
  bases: readonly KubeObject[],
  patches: readonly KubeObject[],
  endpoint: WebhookEndpoint,
): KubeObject[] {
  return bases.map((crd) => {
    const patch = patches.find((p) => p.metadata.name === crd.metadata.name);
    const conversion = (patch?.spec as Loose | undefined)?.conversion as
      { webhook?: { clientConfig?: ClientConfig } & Loose } | undefined;
    if (!conversion?.webhook) return crd;
    const webhook = {
      ...conversion.webhook,
      clientConfig: loopbackClientConfig(conversion.webhook.clientConfig, endpoint),
    };
    return { ...crd, spec: { ...(crd.spec as Loose), conversion: { ...conversion, webhook } } };
  });
}

/**
 * kustomize's name prefix and namespace on namespaced objects and on what bindings refer to (their role
 * and their ServiceAccount subjects); cluster-scoped objects keep no namespace.
 */
export function placed(objects: readonly KubeObject[], placement: Placement): KubeObject[] {
  const name = (n: string) => `${placement.namePrefix}${n}`;
  return objects.map((object) => {
    const metadata = { ...object.metadata, name: name(object.metadata.name) };
    if (object.metadata.namespace !== undefined) metadata.namespace = placement.namespace;
    const out: KubeObject = { ...object, metadata };
    const roleRef = object.roleRef as { name?: string } | undefined;
    if (roleRef?.name !== undefined) out.roleRef = { ...roleRef, name: name(roleRef.name) };
    const subjects = object.subjects as { kind?: string; name?: string }[] | undefined;
    if (subjects) {
      out.subjects = subjects.map((s) =>
        s.kind === 'ServiceAccount' && s.name !== undefined
          ? { ...s, name: name(s.name), namespace: placement.namespace }
          : s,
      );
    }
    return out;
  });
}

/** The webhooks of a patch (kustomize merges a configuration's webhooks by name). */
function patchedWebhooks(patches: readonly KubeObject[], config: KubeObject): Map<string, Webhook> {
  const byName = new Map<string, Webhook>();
  for (const patch of patches) {
    if (patch.kind !== config.kind || patch.metadata.name !== config.metadata.name) continue;
    for (const webhook of (patch.webhooks as Webhook[] | undefined) ?? []) byName.set(webhook.name, webhook);
  }
  return byName;
}

/**
 * The Mutating- and ValidatingWebhookConfigurations, named as config/default names them, with the
 * patches' fields on their webhooks (the namespace selectors that keep system namespaces out), each
 * calling the loopback endpoint.
 */
export function webhookConfigurations(
  objects: readonly KubeObject[],
  patches: readonly KubeObject[],
  endpoint: WebhookEndpoint,
  placement: Placement,
): KubeObject[] {
  return objects
    .filter((o) => o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration')
    .map((config) => {
      const patched = patchedWebhooks(patches, config);
      const webhooks = ((config.webhooks as Webhook[] | undefined) ?? []).map((webhook) => ({
        ...webhook,
        ...patched.get(webhook.name),
        clientConfig: loopbackClientConfig(webhook.clientConfig, endpoint),
      }));
      return {
        ...config,
        metadata: { ...config.metadata, name: `${placement.namePrefix}${config.metadata.name}` },
        webhooks,
      };
    });
}
