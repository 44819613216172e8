/**
 * The two conversions of a MiniCluster's spec and status, field by field: what both versions can
 * say, said in the other's words. What one cannot say is left out here (and kept by the residue,
 * residue.ts); each result is pruned to its version's schema. Total on any input: fields of an
 * unexpected shape are carried as they are, for the schema to refuse.
 *
 * Where the versions mean different things by the same spelling, the meaning is kept:
 * - Flux's place: a v1alpha1 image has Flux, which v1alpha2 says with `flux.container.disable: true`;
 *   a v1alpha2 Flux view has no v1alpha1 form.
 * - `logging.strict` defaults to true in v1alpha1 and false in v1alpha2: an unset one is written out.
 * - No command, not interactive: v1alpha1 serves the RESTful API, which v1alpha2 does only with
 *   `fluxRestful` (written out); v1alpha2 keeps the instance up for jobs, which v1alpha1 says with
 *   `interactive: true`.
 * - v1alpha1's `existingVolumes` are volumes like the others in v1alpha2; its
 *   `securityContext.addCapabilities` is `securityContext.capabilities.add`.
 * - A v1alpha2 volume without a path is an emptyDir at /dev/shm; one without a source that names no
 *   spec.volumes entry is an emptyDir; emptyDirMedium `memory` is `Memory`.
 * - A container's `logs` means something else in each version (v1alpha1 refuses it): neither is the
 *   other's.
 * - A v1alpha1 container beside the Flux container runs as it is: v1alpha2's noWrapEntrypoint: true.
 * - v1alpha1 gives the brokers no pod affinity, which v1alpha2 says with
 *   `network.disableAffinity: true` (unset, v1alpha2 gives them one): a MiniCluster written as
 *   v1alpha1 keeps its pods when read as v1alpha2, and a running one's Job does not change (which
 *   Kubernetes would refuse).
 * - A v1alpha1 pod gets its service account's token when it names the account (`pod.serviceAccountName`,
 *   the only way v1alpha1 has to ask for one): v1alpha2's `pod.automountServiceAccountToken: true`.
 *   Otherwise neither mounts one.
 */
import { MiniClusterV1alpha1SpecSchema } from './schema.ts';
import { StatusFieldsSchema } from '../shared/status-schema.ts';
import { joinsAnother, runnerHasCommand } from '../shared/restful-schema.ts';
import { isObject, objectOr } from '../shared/json.ts';
import type { JsonObject } from '../shared/json.ts';
import { pruneToSchema } from './prune.ts';
import { MiniClusterSpecSchema, MiniClusterStatusSchema } from '../schema.ts';
import { DEFAULT_APPLICATION_IMAGE, DEFAULT_EMPTY_DIR_PATH } from '../go-defaults.ts';

type RestfulView = Parameters<typeof runnerHasCommand>[0];

/** v1alpha1's default of `logging.strict` (v1alpha2's is false). */
const V1ALPHA1_STRICT = true;

function restfulView(spec: JsonObject): RestfulView | undefined {
  return Array.isArray(spec.containers) && spec.containers.every(isObject)
    ? (spec as unknown as RestfulView)
    : undefined;
}

/** No command, not interactive, no fluxRestful, not joining another instance. */
function idleWithoutRestful(spec: JsonObject): boolean {
  const view = restfulView(spec);
  return (
    view !== undefined &&
    spec.fluxRestful === undefined &&
    spec.interactive !== true &&
    !runnerHasCommand(view) &&
    !joinsAnother(view)
  );
}

function mapList(value: unknown, convert: (item: JsonObject) => JsonObject): unknown {
  return Array.isArray(value) ? value.map((item) => (isObject(item) ? convert(item) : item)) : value;
}

function mapValues(
  value: unknown,
  convert: (name: string, item: JsonObject) => JsonObject | undefined,
): unknown {
  if (!isObject(value)) return value;
  const entries: [string, unknown][] = [];
  for (const [name, item] of Object.entries(value)) {
    if (!isObject(item)) entries.push([name, item]);
    else {
      const converted = convert(name, item);
      if (converted !== undefined) entries.push([name, converted]);
    }
  }
  return Object.fromEntries(entries);
}

function withLogging(spec: JsonObject, strictWhenUnset: boolean): void {
  if (spec.logging !== undefined && !isObject(spec.logging)) return;
  const logging = objectOr(spec.logging);
  spec.logging = Object.hasOwn(logging, 'strict') ? logging : { ...logging, strict: strictWhenUnset };
}

// ---------------------------------------------------------------------------------------------
// v1alpha1 -> v1alpha2

function securityContextToV1alpha2(context: unknown): unknown {
  if (!isObject(context)) return context;
  const { addCapabilities, ...rest } = context;
  return addCapabilities === undefined ? rest : { ...rest, capabilities: { add: addCapabilities } };
}

/** `logs` means something else in each version for a container; a service refuses it in both. */
function withoutContainerLogs(container: JsonObject, service: boolean): JsonObject {
  if (service) return container;
  const { logs: _logs, ...rest } = container;
  return rest;
}

function serviceToV1alpha2(service: JsonObject): JsonObject {
  return containerToV1alpha2(service, true);
}

/**
 * A v1alpha1 container beside the Flux container runs its command (or its image's entrypoint) as it
 * is, which v1alpha2 says with noWrapEntrypoint: true (unset, it would wait for Flux in a wrapper).
 */
function sidecarToV1alpha2(container: JsonObject): JsonObject {
  return { ...containerToV1alpha2(container), noWrapEntrypoint: true };
}

function runsFlux(containers: unknown[], container: unknown): boolean {
  return containers.length === 1 || (isObject(container) && container.runFlux === true);
}

function containerToV1alpha2(container: JsonObject, service = false): JsonObject {
  const { existingVolumes, diagnostics: _diagnostics, ...rest } = withoutContainerLogs(container, service);
  const result: JsonObject = { ...rest };
  if (existingVolumes !== undefined) {
    result.volumes =
      isObject(existingVolumes) && (rest.volumes === undefined || isObject(rest.volumes))
        ? { ...existingVolumes, ...objectOr(rest.volumes) }
        : rest.volumes;
  }
  if (rest.securityContext !== undefined)
    result.securityContext = securityContextToV1alpha2(rest.securityContext);
  return result;
}

export function specToV1alpha2(v1alpha1: unknown): unknown {
  if (!isObject(v1alpha1)) return v1alpha1;
  const spec: JsonObject = structuredClone(v1alpha1);
  // The same condition as idleWithoutRestful: v1alpha1 serves the RESTful API there.
  const impliedRestful = idleWithoutRestful(spec);
  withLogging(spec, V1ALPHA1_STRICT);
  if (spec.flux === undefined || isObject(spec.flux)) {
    spec.flux = { ...objectOr(spec.flux), container: { disable: true } };
  }
  if (impliedRestful) spec.fluxRestful = {};
  if (spec.network === undefined || isObject(spec.network)) {
    const network = objectOr(spec.network);
    spec.network = Object.hasOwn(network, 'disableAffinity')
      ? network
      : { ...network, disableAffinity: true };
  }
  if (Array.isArray(spec.containers)) {
    const containers = spec.containers;
    spec.containers = mapList(containers, (container) =>
      runsFlux(containers, container) ? containerToV1alpha2(container) : sidecarToV1alpha2(container),
    );
  }
  if (spec.services !== undefined) spec.services = mapList(spec.services, serviceToV1alpha2);
  if (isObject(spec.pod) && spec.pod.serviceAccountName !== undefined)
    spec.pod = { automountServiceAccountToken: true, ...spec.pod };
  return pruneToSchema(MiniClusterSpecSchema, spec);
}

// ---------------------------------------------------------------------------------------------
// v1alpha2 -> v1alpha1

function securityContextToV1alpha1(context: unknown): unknown {
  if (!isObject(context)) return context;
  const { capabilities, ...rest } = context;
  const add = objectOr(capabilities).add;
  return add === undefined ? rest : { ...rest, addCapabilities: add };
}

function hasOwnSource(volume: JsonObject): boolean {
  return (
    ['configMapName', 'secretName', 'claimName', 'hostPath', 'csiDriver'].some(
      (field) => volume[field] !== undefined,
    ) || volume.emptyDir === true
  );
}

function volumeToV1alpha1(storageNames: ReadonlySet<string>) {
  return (name: string, volume: JsonObject): JsonObject | undefined => {
    if (volume.csiDriver !== undefined) return undefined;
    const result: JsonObject = { ...volume };
    if (result.emptyDirMedium === 'memory') result.emptyDirMedium = 'Memory';
    if (!hasOwnSource(result) && !storageNames.has(name)) result.emptyDir = true;
    if (result.path === undefined && result.emptyDir === true) result.path = DEFAULT_EMPTY_DIR_PATH;
    return result;
  };
}

function containerToV1alpha1(storageNames: ReadonlySet<string>, service: boolean) {
  return (container: JsonObject): JsonObject => {
    const rest = withoutContainerLogs(container, service);
    const result: JsonObject = { ...rest, image: rest.image ?? DEFAULT_APPLICATION_IMAGE };
    if (rest.volumes !== undefined) result.volumes = mapValues(rest.volumes, volumeToV1alpha1(storageNames));
    if (rest.securityContext !== undefined)
      result.securityContext = securityContextToV1alpha1(rest.securityContext);
    return result;
  };
}

export function specToV1alpha1(v1alpha2: unknown): unknown {
  if (!isObject(v1alpha2)) return v1alpha2;
  const spec: JsonObject = structuredClone(v1alpha2);
  const idle = idleWithoutRestful(spec);
  withLogging(spec, false);
  if (isObject(spec.flux)) {
    const { container: _container, ...flux } = spec.flux;
    spec.flux = flux;
  }
  if (idle) spec.interactive = true;
  const storageNames = new Set(Object.keys(objectOr(spec.volumes)));
  spec.containers = mapList(spec.containers, containerToV1alpha1(storageNames, false));
  if (spec.services !== undefined)
    spec.services = mapList(spec.services, containerToV1alpha1(storageNames, true));
  return pruneToSchema(MiniClusterV1alpha1SpecSchema, spec);
}

// ---------------------------------------------------------------------------------------------
// Status: the same fields (v1alpha2 adds the Go operator's jobid).

export function statusToV1alpha2(status: unknown): unknown {
  return pruneToSchema(MiniClusterStatusSchema, structuredClone(status));
}

export function statusToV1alpha1(status: unknown): unknown {
  return pruneToSchema(StatusFieldsSchema, structuredClone(status));
}
