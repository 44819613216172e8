/** Builders for render tests: valid, defaulted MiniClusters and fixed keys. */
import assert from 'node:assert/strict';
import type { V1ConfigMap, V1Job, V1Secret, V1Service } from '@kubernetes/client-node';
import {
  defaultedToV1alpha2,
  validateMiniCluster,
  validateMiniClusterV1alpha1,
  type DefaultedMiniCluster,
  type DefaultedMiniClusterV1alpha1,
  type MiniClusterSpec,
  type MiniClusterV1alpha1Spec,
} from '../../../src/api/index.ts';
import type { KubeObject, MiniClusterKeys } from '../../../src/render/index.ts';

export const IMAGE = 'ghcr.io/flux-framework/flux-restful-api:latest';

/** Fixed keys: a recognisable certificate text and a patterned munge key. */
export const KEYS: MiniClusterKeys = {
  curveCertificate: 'CURVE-CERTIFICATE-TEXT-SECRET-KEY-MATERIAL\n',
  mungeKey: Uint8Array.from({ length: 1024 }, (_, index) => index % 251),
  restfulSeed: Uint8Array.from({ length: 32 }, (_, index) => index),
};

/** A v1alpha1 MiniCluster through validation and defaulting, as it is written. */
export function defaultedV1alpha1(
  spec: Partial<MiniClusterV1alpha1Spec>,
  name = 'flux-sample',
  namespace = 'default',
): DefaultedMiniClusterV1alpha1 {
  const result = validateMiniClusterV1alpha1({
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: { name, namespace },
    spec: { containers: [{ image: IMAGE, command: 'hostname' }], ...spec },
  });
  if (!result.ok) assert.fail(`fixture is invalid: ${JSON.stringify(result.problems)}`);
  return result.value;
}

function only<T>(objects: KubeObject[], kind: string, name?: string): T {
  const matches = objects.filter(
    (object) => object.kind === kind && (name === undefined || object.metadata.name === name),
  );
  assert.equal(matches.length, 1, `expected one ${kind}${name ? ` ${name}` : ''}, found ${matches.length}`);
  return matches[0] as T;
}

export const find = {
  configMap: (objects: KubeObject[]) => only<V1ConfigMap>(objects, 'ConfigMap'),
  secret: (objects: KubeObject[], name: string) => only<V1Secret>(objects, 'Secret', name),
  service: (objects: KubeObject[]) => only<V1Service>(objects, 'Service'),
  job: (objects: KubeObject[]) => only<V1Job>(objects, 'Job'),
};

/** A parsed document as plain JSON objects (TOML parsers may build objects without a prototype). */
export function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** The value, after asserting it is there. */
export function present<T>(value: T | undefined | null): T {
  assert.ok(value !== undefined && value !== null, 'expected a value');
  return value;
}

/** The Flux view image the v1alpha2 fixtures default to (the operator's setting). */
export const VIEW_IMAGE = 'localhost/flux-view:0.88.0';
export const APP_IMAGE = 'localhost/plain:bookworm';

/** A v1alpha2 MiniCluster through validation and defaulting, with VIEW_IMAGE as the operator's view. */
export function defaultedV1alpha2(
  spec: Partial<MiniClusterSpec>,
  name = 'flux-sample',
  namespace = 'default',
): DefaultedMiniCluster {
  const result = validateMiniCluster(
    {
      apiVersion: 'flux-framework.org/v1alpha2',
      kind: 'MiniCluster',
      metadata: { name, namespace },
      spec: { containers: [{ image: APP_IMAGE, command: 'hostname' }], ...spec },
    },
    { fluxViewImage: VIEW_IMAGE },
  );
  if (!result.ok) assert.fail(`fixture is invalid: ${JSON.stringify(result.problems)}`);
  return result.value;
}

/**
 * A v1alpha1 MiniCluster as the CLI and the controller hold it: validated and defaulted in its
 * version, then the hub's model of it (what the renderer reads).
 */
export function defaulted(
  spec: Partial<MiniClusterV1alpha1Spec>,
  name = 'flux-sample',
  namespace = 'default',
): DefaultedMiniCluster {
  return defaultedToV1alpha2(defaultedV1alpha1(spec, name, namespace));
}
