/**
 * The MiniCluster CustomResourceDefinition (apiextensions.k8s.io/v1), built from the schema.
 *
 * TypeBox emits JSON Schema with a few constructs a Kubernetes structural schema forbids; the
 * conversion below maps each of them and refuses anything it does not know, so a new schema
 * construct fails `npm run generate` instead of producing a CRD the API server rejects:
 * - unions of literals -> `type: string` + `enum` (no anyOf of consts under a property),
 * - literals -> `enum` with one value,
 * - records (patternProperties) -> `additionalProperties`,
 * - quantity unions -> the `x-kubernetes-int-or-string` form controller-gen emits,
 * - `additionalProperties: false` dropped (Kubernetes prunes unknown fields instead),
 * - TypeBox's symbol keys and `$id` dropped.
 */
import { GROUP } from '../group.ts';
import type { TSchema } from '@sinclair/typebox';
import type { CelRule } from './schema-helpers.ts';

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps the MiniCluster schema uses. */
export interface JsonSchemaProps {
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps;
  items?: JsonSchemaProps;
  anyOf?: JsonSchemaProps[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: CelRule[];
}

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'string' | 'date' | 'number' | 'boolean';
  jsonPath: string;
  description: string;
  priority?: number;
}

/** A namespaced CRD of this API group with one version; `Subresources` is what that version serves. */
export interface CustomResourceDefinitionOf<Subresources> {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    scope: 'Namespaced';
    versions: CrdVersionOf<Subresources>[];
    conversion?: CrdConversion;
  };
}

/** One version entry of a CRD. */
export interface CrdVersionOf<Subresources> {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: JsonSchemaProps };
  subresources: Subresources;
  additionalPrinterColumns: PrinterColumn[];
}

/** The MiniCluster CRD's subresources: status and scale. */
export type MiniClusterSubresources = {
  status: Record<string, never>;
  scale: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath: string };
};

/** The MiniCluster CRD: status and scale subresources, two versions, webhook conversion. */
export type CustomResourceDefinition = CustomResourceDefinitionOf<MiniClusterSubresources>;

/** Where the API server reaches the conversion webhook (apiextensions.k8s.io/v1 WebhookClientConfig). */
export type ConversionClientConfig =
  | {
      service: { namespace: string; name: string; path: string; port: number };
      /** Base64 PEM of the CA(s) the webhook's certificate chains to; the operator writes it. */
      caBundle?: string;
    }
  | { url: string; caBundle?: string };

/** spec.conversion of a CRD whose versions the operator's webhook converts. */
export interface CrdConversion {
  strategy: 'Webhook';
  webhook: { conversionReviewVersions: string[]; clientConfig: ConversionClientConfig };
}

/** The path the operator serves ConversionReviews on, in cluster and out of cluster alike. */
export const CONVERSION_WEBHOOK_PATH = '/convert';

/**
 * Where the CRD as installed sends conversions: the operator's webhook Service in its default
 * namespace (src/deploy's OPERATOR_NAMESPACE and WEBHOOK_SERVICE_NAME: a unit test keeps them equal).
 * Installs in another namespace pass their own; an operator run out of cluster points it at itself.
 */
export const DEFAULT_CONVERSION_SERVICE = {
  namespace: 'flux-operator-system',
  name: 'flux-operator-webhook',
  path: CONVERSION_WEBHOOK_PATH,
  port: 443,
} as const;

/** The conversion stanza: ConversionReview v1 only, sent to `clientConfig`. */
export function webhookConversion(clientConfig: ConversionClientConfig): CrdConversion {
  return {
    strategy: 'Webhook',
    webhook: { conversionReviewVersions: ['v1'], clientConfig: structuredClone(clientConfig) },
  };
}

/** Keywords copied as they are, in the order they are written (descriptions first reads best). */
const COPIED_KEYWORDS = [
  'description',
  'type',
  'format',
  'enum',
  'default',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'required',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
] as const;

/** Keywords handled by the conversion itself (or deliberately dropped). */
const CONVERTED_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'anyOf',
  'const',
  'x-kubernetes-int-or-string',
  '$id',
]);

type SourceNode = Record<string, unknown>;

function fail(path: string, problem: string): never {
  throw new Error(`CRD schema at ${path || '(root)'}: ${problem}`);
}

function asNode(value: unknown, path: string): SourceNode {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(path, 'expected a schema object');
  return value as SourceNode;
}

function copyKeywords(source: SourceNode, target: JsonSchemaProps): void {
  for (const keyword of COPIED_KEYWORDS) {
    const value = source[keyword];
    if (value === undefined) continue;
    if (keyword === 'required' && Array.isArray(value) && value.length === 0) continue;
    (target as Record<string, unknown>)[keyword] = structuredClone(value);
  }
}

/** `anyOf` of `const`s (a TypeBox union of literals) -> `type` + `enum`. */
function enumFromLiterals(source: SourceNode, branches: SourceNode[], path: string): JsonSchemaProps {
  const values = branches.map((branch, index) => {
    if (!('const' in branch))
      fail(`${path}.anyOf[${index}]`, 'only unions of literals or quantities are supported');
    return branch.const;
  });
  const types = new Set(values.map((value) => typeof value));
  if (types.size !== 1 || !types.has('string')) fail(path, 'enum values must all be strings');
  const target: JsonSchemaProps = { type: 'string' };
  copyKeywords(source, target);
  target.type = 'string';
  target.enum = values;
  return orderKeys(target);
}

/** A quantity union -> `x-kubernetes-int-or-string` with the string branch's pattern hoisted. */
function intOrString(source: SourceNode, branches: SourceNode[], path: string): JsonSchemaProps {
  const stringBranch = branches.find((branch) => branch.type === 'string');
  const integerBranch = branches.find((branch) => branch.type === 'integer');
  if (branches.length !== 2 || !stringBranch || !integerBranch) {
    fail(path, 'x-kubernetes-int-or-string needs exactly an integer and a string branch');
  }
  const target: JsonSchemaProps = {};
  copyKeywords(source, target);
  target.anyOf = [{ type: 'integer' }, { type: 'string' }];
  // Numeric bounds apply to the integer, string bounds to the string: one node holds both.
  if (typeof integerBranch.minimum === 'number') target.minimum = integerBranch.minimum;
  if (typeof integerBranch.maximum === 'number') target.maximum = integerBranch.maximum;
  if (typeof stringBranch.maxLength === 'number') target.maxLength = stringBranch.maxLength;
  if (typeof stringBranch.pattern === 'string') target.pattern = stringBranch.pattern;
  target['x-kubernetes-int-or-string'] = true;
  return orderKeys(target);
}

const KEY_ORDER: string[] = [
  ...COPIED_KEYWORDS.slice(0, 15),
  'anyOf',
  'x-kubernetes-int-or-string',
  'properties',
  'additionalProperties',
  'items',
  ...COPIED_KEYWORDS.slice(15),
];

function orderKeys(node: JsonSchemaProps): JsonSchemaProps {
  const entries = Object.entries(node).sort(([a], [b]) => KEY_ORDER.indexOf(a) - KEY_ORDER.indexOf(b));
  return Object.fromEntries(entries) as JsonSchemaProps;
}

/**
 * Converts a TypeBox (JSON Schema) node into a structural-schema node. `path` names the node in
 * error messages. Throws on constructs a structural schema cannot hold.
 */
export function toStructuralSchema(schema: object, path = ''): JsonSchemaProps {
  const source = asNode(schema, path);
  for (const key of Object.keys(source)) {
    if (!(COPIED_KEYWORDS as readonly string[]).includes(key) && !CONVERTED_KEYWORDS.has(key)) {
      fail(path, `unsupported keyword "${key}"`);
    }
  }

  if (Array.isArray(source.anyOf)) {
    const branches = source.anyOf.map((branch, index) => asNode(branch, `${path}.anyOf[${index}]`));
    return source['x-kubernetes-int-or-string'] === true
      ? intOrString(source, branches, path)
      : enumFromLiterals(source, branches, path);
  }

  const target: JsonSchemaProps = {};
  copyKeywords(source, target);
  if ('const' in source) target.enum = [source.const];

  if (source.properties !== undefined) {
    const properties = asNode(source.properties, `${path}.properties`);
    target.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        toStructuralSchema(asNode(property, `${path}.${name}`), `${path}.${name}`),
      ]),
    );
  }
  if (source.patternProperties !== undefined) {
    const patterns = Object.values(asNode(source.patternProperties, `${path}.patternProperties`));
    if (patterns.length !== 1) fail(path, 'a map needs exactly one value schema');
    target.additionalProperties = toStructuralSchema(asNode(patterns[0], `${path}[*]`), `${path}[*]`);
  } else if (typeof source.additionalProperties === 'object' && source.additionalProperties !== null) {
    target.additionalProperties = toStructuralSchema(source.additionalProperties, `${path}[*]`);
  }
  if (source.items !== undefined) {
    target.items = toStructuralSchema(asNode(source.items, `${path}[*]`), `${path}[*]`);
  }
  if (target.type === undefined) fail(path, 'every node needs a type');
  return orderKeys(target);
}

/** Columns of `kubectl get miniclusters` (priority 1: only with `-o wide`). */
export const PRINTER_COLUMNS: PrinterColumn[] = [
  { name: 'Size', type: 'integer', jsonPath: '.spec.size', description: 'Desired number of pods (brokers).' },
  { name: 'Ready', type: 'integer', jsonPath: '.status.readyPods', description: 'Pods that are ready.' },
  { name: 'Status', type: 'string', jsonPath: '.status.summary', description: 'Summary of the conditions.' },
  {
    name: 'Max',
    type: 'integer',
    jsonPath: '.status.maximumSize',
    description: 'Most pods the MiniCluster can scale to.',
    priority: 1,
  },
  { name: 'Job', type: 'string', jsonPath: '.status.jobName', description: 'The indexed Job.', priority: 1 },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since creation.' },
];

/** The scale subresource: `kubectl scale mc/<name> --replicas=N` sets spec.size. */
export const SCALE_SUBRESOURCE = {
  specReplicasPath: '.spec.size',
  statusReplicasPath: '.status.size',
  labelSelectorPath: '.status.selector',
};

/** The structural openAPIV3Schema of a custom resource: its spec and status schemas and root CEL rules. */
export function rootSchemaOf(
  resource: {
    description?: string;
    properties: { apiVersion: { description?: string }; kind: { description?: string } };
  },
  spec: TSchema,
  status: TSchema,
): JsonSchemaProps {
  const rootRules = (resource as Record<string, unknown>)['x-kubernetes-validations'] as
    CelRule[] | undefined;
  const root: JsonSchemaProps = {
    ...(resource.description !== undefined ? { description: resource.description } : {}),
    type: 'object',
    required: ['spec'],
    properties: {
      apiVersion: { description: resource.properties.apiVersion.description, type: 'string' },
      kind: { description: resource.properties.kind.description, type: 'string' },
      metadata: { type: 'object' },
      spec: toStructuralSchema(spec, 'spec'),
      status: toStructuralSchema(status, 'status'),
    },
  };
  if (rootRules) root['x-kubernetes-validations'] = structuredClone(rootRules);
  return root;
}

/** What tells one CRD of this API group from another. */
export interface CrdDefinition<Subresources> {
  readonly name: string;
  /** The one version it serves and stores. */
  readonly version: string;
  readonly names: CustomResourceDefinitionOf<Subresources>['spec']['names'];
  readonly schema: JsonSchemaProps;
  readonly subresources: Subresources;
  readonly printerColumns: readonly PrinterColumn[];
}

/** A namespaced CRD of this API group serving one version (the storage one). */
export function namespacedCrd<Subresources>(
  definition: CrdDefinition<Subresources>,
): CustomResourceDefinitionOf<Subresources> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: definition.name },
    spec: {
      group: GROUP,
      names: definition.names,
      scope: 'Namespaced',
      versions: [
        {
          name: definition.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: definition.schema },
          subresources: definition.subresources,
          additionalPrinterColumns: definition.printerColumns.map((column) => ({ ...column })),
        },
      ],
    },
  };
}
