import { createHmac } from 'node:crypto';
import type { V1Secret, V1Service } from '@kubernetes/client-node';
import {
  COMPONENT_RESTFUL,
  DEFAULT_RESTFUL_PORT,
  DEFAULT_RESTFUL_USER,
  LABEL_JOB_COMPLETION_INDEX,
  SECRET_DATA_KEYS,
  commonLabels,
  selectorLabels,
} from '../api/index.ts';
import { joinsAnother } from '../api/shared/restful-schema.ts';
import type { InitialProgram } from '../flux/index.ts';
import { RESTFUL_SERVER_FILE } from '../restful/server-files.ts';
import type { Rendered } from './kube-object.ts';
import { layoutOf } from './layout.ts';
import type { DefaultedMiniCluster } from './model.ts';
import { namespaceOf, type MiniClusterNames } from './names.ts';
import { OPERATOR_DIR, RESTFUL_CREDENTIALS_FILE, RESTFUL_MOUNT_DIR } from './paths.ts';

export interface RestfulCredentials {
  readonly username: string;
  readonly token: string;
  readonly secretKey: string;
  /** Every user of the API (the main one first) and their tokens. */
  readonly users: Readonly<Record<string, string>>;
  /** The users who see and cancel every job: the main one, and those of spec.users made so. */
  readonly administrators: readonly string[];
}

/**
 * The lead pod serves the RESTful API: v1alpha2 says so with fluxRestful (a v1alpha1 MiniCluster
 * that implies it has it written out by the conversion), unless its brokers join another instance.
 */
export function servesRestful(miniCluster: DefaultedMiniCluster): boolean {
  const { spec } = miniCluster;
  return spec.fluxRestful !== undefined && !joinsAnother(spec);
}

export function restfulPort(miniCluster: DefaultedMiniCluster): number {
  return miniCluster.spec.fluxRestful?.port ?? DEFAULT_RESTFUL_PORT;
}

/**
 * A generated secret: derived from the MiniCluster's random seed (RESTFUL_SEED_BYTES, 256 bits) and
 * what it is for, so the same seed gives the same values on every reconcile, and a user added later
 * gets a token of their own. HMAC-SHA256: 256 bits, 43 base64url characters.
 */
function derived(seed: Uint8Array, purpose: string): string {
  return createHmac('sha256', seed).update(purpose).digest('base64url');
}

/** The API's credentials: the spec's where it gives them, derived from the seed where not. */
export function restfulCredentials(miniCluster: DefaultedMiniCluster, seed: Uint8Array): RestfulCredentials {
  const given = miniCluster.spec.fluxRestful;
  const username = given?.username ?? DEFAULT_RESTFUL_USER;
  const token = given?.token ?? derived(seed, 'token');
  const users: Record<string, string> = { [username]: token };
  const administrators = [username];
  for (const user of miniCluster.spec.users ?? []) {
    users[user.name] = user.password ?? derived(seed, `user:${user.name}`);
    if (user.administrator === true) administrators.push(user.name);
  }
  return {
    username,
    token,
    secretKey: given?.secretKey ?? derived(seed, 'secret-key'),
    users,
    administrators,
  };
}

function requireSeed(miniCluster: DefaultedMiniCluster, seed: Uint8Array | undefined): Uint8Array {
  if (seed === undefined || seed.length === 0) {
    throw new Error(
      `MiniCluster ${miniCluster.metadata.name} serves the RESTful API but its keys have no restfulSeed`,
    );
  }
  return seed;
}

/** The Secret `<name>-restful`: never immutable, since the spec's credentials may change. */
export function renderRestfulSecret(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
  seed: Uint8Array | undefined,
): Rendered<V1Secret> {
  const known = requireSeed(miniCluster, seed);
  const credentials = restfulCredentials(miniCluster, known);
  const { secretKey, users, administrators } = credentials;
  const file = `${JSON.stringify({ secretKey, users, administrators })}\n`;
  const encode = (text: string | Uint8Array) => Buffer.from(text).toString('base64');
  const keys = SECRET_DATA_KEYS.restful;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: names.restful,
      namespace: namespaceOf(miniCluster),
      labels: commonLabels(miniCluster.metadata.name, COMPONENT_RESTFUL),
    },
    type: 'Opaque',
    data: {
      [keys.credentials]: encode(file),
      [keys.secretKey]: encode(credentials.secretKey),
      [keys.seed]: encode(known),
      [keys.token]: encode(credentials.token),
      [keys.username]: encode(credentials.username),
    },
  };
}

/**
 * The Service `<name>-restful`: the API's port on the lead pod only, reachable in the cluster and
 * through the API server's service proxy (`/api/v1/namespaces/<ns>/services/<name>-restful:http/proxy/`).
 */
export function renderRestfulService(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
): Rendered<V1Service> {
  const { name } = miniCluster.metadata;
  const port = restfulPort(miniCluster);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: names.restful,
      namespace: namespaceOf(miniCluster),
      labels: commonLabels(name, COMPONENT_RESTFUL),
    },
    spec: {
      selector: { ...selectorLabels(name), [LABEL_JOB_COMPLETION_INDEX]: '0' },
      ports: [{ name: 'http', port, targetPort: port, protocol: 'TCP' }],
    },
  };
}

/** The lead broker's initial program in RESTful mode. */
export function restfulProgram(miniCluster: DefaultedMiniCluster): InitialProgram {
  const branch = miniCluster.spec.fluxRestful?.branch;
  return {
    kind: 'restful',
    ...(branch !== undefined ? { ignoredBranch: branch } : {}),
    serverPath: `${OPERATOR_DIR}/${RESTFUL_SERVER_FILE}`,
    credentialsSourcePath: `${RESTFUL_MOUNT_DIR}/${RESTFUL_CREDENTIALS_FILE}`,
    credentialsPath: layoutOf(miniCluster).restfulCredentialsPath,
    port: restfulPort(miniCluster),
  };
}
