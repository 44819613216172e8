/**
 * Defaulting. Static defaults come from the schema's `default` keywords, applied the way the API
 * server applies them to a structural schema; derived defaults (maxSize, headlessName, container
 * and burst cluster names) are computed here because no static default can express them.
 */
import { userBrokerConfigFacts } from './user-broker-config.ts';

/** The JSON Schema keywords defaulting walks through (TypeBox schemas are plain JSON Schema). */
interface SchemaNode {
  default?: unknown;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema of a map's values: TypeBox records use patternProperties, the CRD additionalProperties. */
function mapValueSchema(schema: SchemaNode): SchemaNode | undefined {
  const [patternValue] = Object.values(schema.patternProperties ?? {});
  if (patternValue) return patternValue;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/**
 * Returns a copy of `value` with the schema's defaults filled in, as the API server does: a
 * missing property with a `default` gets a copy of it, then defaulting descends into every present
 * (or just defaulted) object, map value and list item. `value` is not modified. Values of the
 * wrong type are left alone: defaulting never throws, validation reports them.
 */
export function applySchemaDefaults(schema: object, value: unknown): unknown {
  return defaultNode(schema as SchemaNode, structuredClone(value));
}

function defaultNode(schema: SchemaNode, value: unknown): unknown {
  if (Array.isArray(value)) {
    const itemSchema = schema.items;
    return itemSchema ? value.map((item) => defaultNode(itemSchema, item)) : value;
  }
  if (!isPlainObject(value)) return value;
  if (schema.properties) {
    for (const [key, propertySchema] of Object.entries(schema.properties)) {
      if (value[key] === undefined && propertySchema.default !== undefined) {
        value[key] = structuredClone(propertySchema.default);
      }
      if (value[key] !== undefined) value[key] = defaultNode(propertySchema, value[key]);
    }
    return value;
  }
  const valueSchema = mapValueSchema(schema);
  if (valueSchema) {
    for (const key of Object.keys(value)) value[key] = defaultNode(valueSchema, value[key]);
  }
  return value;
}

/** The Go operator's v1alpha1 headless Service name, the same for every MiniCluster. */
const V1ALPHA1_SERVICE_NAME = 'flux-service';

/**
 * Whether a container reaches the services pod by v1alpha1's name, `<name>-services.flux-service`
 * (in its command, hooks or environment), as the Go operator's examples do.
 */
function addressesV1alpha1Services(spec: HeadlessNameInput, miniClusterName: string): boolean {
  const address = `${miniClusterName}-services.${V1ALPHA1_SERVICE_NAME}`;
  return spec.containers.some((container) =>
    [
      container.command,
      ...Object.values(container.environment ?? {}),
      ...Object.values(container.commands ?? {}),
    ].some((text) => typeof text === 'string' && text.includes(address)),
  );
}

/** What the headless Service's default name depends on (the same in v1alpha1 and v1alpha2). */
export interface HeadlessNameInput {
  network?: { headlessName?: string | undefined } | undefined;
  flux?: { brokerConfig?: string | undefined } | undefined;
  containers: readonly {
    command?: string | undefined;
    environment?: Readonly<Record<string, string>> | undefined;
    commands?: object | undefined;
  }[];
}

/**
 * `network.headlessName` as given, or derived (see applyDerivedDefaults): the Service of the user's own
 * broker.toml, `flux-service` when the containers address the services pod by v1alpha1's name, or
 * the MiniCluster's name.
 */
export function defaultHeadlessName(spec: HeadlessNameInput, miniClusterName: string): string {
  const userConfig = spec.flux?.brokerConfig;
  return (
    spec.network?.headlessName ??
    (userConfig !== undefined ? userBrokerConfigFacts(userConfig).serviceName : undefined) ??
    (addressesV1alpha1Services(spec, miniClusterName) ? V1ALPHA1_SERVICE_NAME : undefined) ??
    miniClusterName
  );
}

/** What the derived defaults read of the spec as given (the same in v1alpha1 and v1alpha2). */
export interface DerivedDefaultsInput extends HeadlessNameInput {
  maxSize?: number | undefined;
  containers: readonly (HeadlessNameInput['containers'][number] & {
    runFlux?: boolean | undefined;
    name?: string | undefined;
  })[];
  flux?:
    | {
        brokerConfig?: string | undefined;
        bursting?:
          { clusters?: readonly { name?: string | undefined; size?: number | undefined }[] } | undefined;
      }
    | undefined;
}

/** The fields of a spec with its static defaults that the derived defaults fill in. */
interface DerivedDefaultsTarget {
  size: number;
  maxSize: number;
  network: { headlessName: string };
  containers: { runFlux: boolean; name: string }[];
  flux: { bursting?: { clusters?: { name: string; size: number }[] | undefined } | undefined };
}

/**
 * The derived defaults of both versions, written into `defaulted` (the spec with its static
 * defaults) from `given`:
 * - `maxSize`: `size`.
 * - `network.headlessName`: the MiniCluster's name, unique per namespace, so two MiniClusters
 *   never share a Service by accident (the Go operator's shared `flux-service` raced); with the
 *   user's own `flux.brokerConfig`, the Service its connect URIs go through (a v1alpha1 broker.toml
 *   names `flux-service`), since its brokers find each other only there; when the containers address
 *   the services pod by v1alpha1's name `<name>-services.flux-service`, `flux-service`, so that name
 *   resolves as it did there (whether `services` is set or not: removing them must not rename the
 *   Service, which would need a new Job).
 * - `containers[].runFlux`: true for a single container (it is the Flux container whatever it
 *   says, as in the Go operator), false otherwise.
 * - `containers[].name`: the MiniCluster's name for the Flux container (as in the Go operator);
 *   `container-<index>` for others, which validation requires to be named anyway.
 * - `flux.bursting.clusters[].name`: `burst-<index>`; `.size`: `size`.
 */
export function applyDerivedDefaults(
  defaulted: DerivedDefaultsTarget,
  given: DerivedDefaultsInput,
  miniClusterName: string,
): void {
  defaulted.maxSize = given.maxSize ?? defaulted.size;
  defaulted.network.headlessName = defaultHeadlessName(given, miniClusterName);

  const single = defaulted.containers.length === 1;
  const givenContainers = given.containers;
  defaulted.containers = defaulted.containers.map((container, index) => {
    const runFlux = single || (givenContainers[index]?.runFlux ?? false);
    const name = givenContainers[index]?.name ?? (runFlux ? miniClusterName : `container-${index}`);
    return { ...container, runFlux, name };
  });

  const bursting = defaulted.flux.bursting;
  if (bursting?.clusters) {
    const givenClusters = given.flux?.bursting?.clusters ?? [];
    bursting.clusters = bursting.clusters.map((cluster, index) => ({
      ...cluster,
      name: givenClusters[index]?.name ?? `burst-${index}`,
      size: givenClusters[index]?.size ?? defaulted.size,
    }));
  }
}
