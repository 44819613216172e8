/**
 * Conversion of whole MiniCluster objects between v1alpha1 and v1alpha2, for the conversion webhook
 * and `flux-operator convert`: pure functions, total on any object of either version.
 *
 * Each direction converts the spec and status field by field (convert-spec.ts), then keeps in an
 * annotation of the result what the result cannot say (the residue, residue.ts), and a conversion
 * back gives it back. So v1alpha1 -> v1alpha2 -> v1alpha1 and v1alpha2 -> v1alpha1 -> v1alpha2 both
 * return the object they started from. Metadata passes through, but for the annotations themselves.
 */
import { API_VERSION, GROUP, KIND } from '../group.ts';
import { API_VERSION_V1ALPHA1 } from './version.ts';
import { isObject } from '../shared/json.ts';
import type { JsonObject } from '../shared/json.ts';
import { applyResidue, isResidue, residueSteps } from './residue.ts';
import type { ResidueStep } from './residue.ts';
import { specToV1alpha1, specToV1alpha2, statusToV1alpha1, statusToV1alpha2 } from './convert-spec.ts';
import { MiniClusterV1alpha1Schema } from './schema.ts';
import { MiniClusterSchema } from '../schema.ts';

/** On a v1alpha1 object: its v1alpha2 fields that v1alpha1 cannot say. */
export const V1ALPHA2_RESIDUE_ANNOTATION = `conversion.${GROUP}/v1alpha2`;
/** On a v1alpha2 object: how its v1alpha1 form said what v1alpha2 says otherwise. */
export const V1ALPHA1_RESIDUE_ANNOTATION = `conversion.${GROUP}/v1alpha1`;

export const CONVERTIBLE_API_VERSIONS: readonly string[] = [API_VERSION_V1ALPHA1, API_VERSION];

interface Direction {
  readonly to: string;
  /** The annotation the source carries for this direction, and the one the result gets. */
  readonly consumes: string;
  readonly produces: string;
  readonly spec: (spec: unknown) => unknown;
  readonly status: (status: unknown) => unknown;
  /** The schema of the result's version. */
  readonly schema: object;
  readonly back: Direction;
}

/** The object without the annotation `name`, and the residue it held (none when it is malformed). */
function takeResidue(object: JsonObject, name: string): { object: JsonObject; residue: ResidueStep[] } {
  const metadata = isObject(object.metadata) ? object.metadata : undefined;
  const annotations = isObject(metadata?.annotations) ? metadata.annotations : undefined;
  const text = annotations?.[name];
  if (metadata === undefined || annotations === undefined || text === undefined)
    return { object, residue: [] };
  const { [name]: _taken, ...rest } = annotations;
  const { annotations: _annotations, ...otherMetadata } = metadata;
  const without = {
    ...object,
    metadata: Object.keys(rest).length > 0 ? { ...otherMetadata, annotations: rest } : otherMetadata,
  };
  let parsed: unknown;
  try {
    parsed = typeof text === 'string' ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  // A residue a client broke is dropped: it is bookkeeping of the conversion, not the user's data.
  return { object: without, residue: isResidue(parsed) ? parsed : [] };
}

function withResidue(object: JsonObject, name: string, residue: readonly ResidueStep[]): JsonObject {
  if (residue.length === 0) return object;
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const annotations = isObject(metadata.annotations) ? metadata.annotations : {};
  return {
    ...object,
    metadata: { ...metadata, annotations: { ...annotations, [name]: JSON.stringify(residue) } },
  };
}

/** The field-by-field conversion of a whole object (no residue). */
function convertFields(object: JsonObject, direction: Direction): JsonObject {
  const result: JsonObject = { ...structuredClone(object), apiVersion: direction.to };
  if (Object.hasOwn(object, 'spec')) result.spec = direction.spec(object.spec);
  if (Object.hasOwn(object, 'status')) result.status = direction.status(object.status);
  return result;
}

function convertWith(object: JsonObject, direction: Direction): JsonObject {
  const { object: source, residue: given } = takeResidue(object, direction.consumes);
  const converted = applyResidue(convertFields(source, direction), given, direction.schema);
  const back = convertFields(converted, direction.back);
  return withResidue(converted, direction.produces, residueSteps(source, back));
}

const TO_V1ALPHA2 = {
  to: API_VERSION,
  consumes: V1ALPHA2_RESIDUE_ANNOTATION,
  produces: V1ALPHA1_RESIDUE_ANNOTATION,
  spec: specToV1alpha2,
  status: statusToV1alpha2,
  schema: MiniClusterSchema,
} as Direction;
const TO_V1ALPHA1 = {
  to: API_VERSION_V1ALPHA1,
  consumes: V1ALPHA1_RESIDUE_ANNOTATION,
  produces: V1ALPHA2_RESIDUE_ANNOTATION,
  spec: specToV1alpha1,
  status: statusToV1alpha1,
  schema: MiniClusterV1alpha1Schema,
  back: TO_V1ALPHA2,
} as Direction;
(TO_V1ALPHA2 as { back: Direction }).back = TO_V1ALPHA1;

function asMiniCluster(object: unknown): JsonObject {
  if (!isObject(object)) throw new Error('cannot convert: a MiniCluster must be an object');
  if (object.kind !== KIND) {
    throw new Error(`cannot convert: kind is ${JSON.stringify(object.kind)}, not ${KIND}`);
  }
  if (typeof object.apiVersion !== 'string' || !CONVERTIBLE_API_VERSIONS.includes(object.apiVersion)) {
    throw new Error(
      `cannot convert: apiVersion is ${JSON.stringify(object.apiVersion)}; a MiniCluster is ${CONVERTIBLE_API_VERSIONS.join(' or ')}`,
    );
  }
  return object;
}

/** A v1alpha1 MiniCluster as v1alpha2 (a v1alpha2 one is returned as it is). */
export function toV1alpha2(object: unknown): JsonObject {
  const miniCluster = asMiniCluster(object);
  return miniCluster.apiVersion === API_VERSION
    ? structuredClone(miniCluster)
    : convertWith(miniCluster, TO_V1ALPHA2);
}

/** A v1alpha2 MiniCluster as v1alpha1 (a v1alpha1 one is returned as it is). */
export function toV1alpha1(object: unknown): JsonObject {
  const miniCluster = asMiniCluster(object);
  return miniCluster.apiVersion === API_VERSION_V1ALPHA1
    ? structuredClone(miniCluster)
    : convertWith(miniCluster, TO_V1ALPHA1);
}

/**
 * The conversion webhook's function: `obj` (a MiniCluster of either version) in
 * `desiredApiVersion`. Throws an Error saying why on an object it cannot convert.
 */
export function convertMiniCluster(obj: unknown, desiredApiVersion: string): object {
  if (desiredApiVersion === API_VERSION) return toV1alpha2(obj);
  if (desiredApiVersion === API_VERSION_V1ALPHA1) return toV1alpha1(obj);
  throw new Error(
    `cannot convert to ${JSON.stringify(desiredApiVersion)}: a MiniCluster is ${CONVERTIBLE_API_VERSIONS.join(' or ')}`,
  );
}
