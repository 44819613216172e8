/**
 * `flux-operator install`: server-side applies the operator's install objects (src/deploy) to the
 * cluster of a kubeconfig, then waits until the MiniCluster CRD is Established. Idempotent: a second
 * run reports every object unchanged.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import type {
  KubernetesObject,
  V1CustomResourceDefinitionCondition,
  V1Toleration,
} from '@kubernetes/client-node';
import { CRD_NAME } from '../api/index.ts';
import {
  FIELD_MANAGER,
  OPERATOR_NAME,
  OPERATOR_NAMESPACE,
  clusterRoleBindingName,
  clusterRoleName,
  crdAndRbacObjects,
  installObjects,
  installedMiniClusterCrd,
  operatorLabels,
  operatorSelectorLabels,
  watchedRoleName,
} from '../deploy/index.ts';
import type { InstallObject } from '../deploy/index.ts';
import { serverSideApply } from '../kube/apply.ts';
import type { ApiClients, ObjectApplier } from '../kube/api-clients.ts';
import { apiErrorCode } from '../kube/api-errors.ts';
import { apiClientsFor } from '../kube/clients.ts';
import { applyCrdKeepingClientConfig } from '../kube/conversion-client-config.ts';
import { KubeApiError } from '../kube/transport.ts';
import { readCrdClientConfig } from '../controllers/conversion/crd-client-config.ts';
import {
  conversionLine,
  crdWithoutOperator,
  deploymentConversionLine,
  type InstalledConversion,
} from '../controllers/conversion/install-conversion.ts';
import { settleWithin } from '../observability/settle-within.ts';
import { InputError } from './input-error.ts';
import { DEFAULT_OPERATOR_WAIT_SECONDS, waitForOperator, type OperatorWaitReads } from './install-wait.ts';

export interface InstallCommandOptions {
  /** Kubeconfig file; the default loading rules ($KUBECONFIG, ~/.kube/config, in-cluster) when absent. */
  readonly kubeconfig?: string;
  /** Namespace of the operator (its ServiceAccount, Lease and Deployment); OPERATOR_NAMESPACE by default. */
  readonly namespace?: string;
  /** Also apply the operator's Deployment (otherwise only the CRD, RBAC, Namespace, ServiceAccount). */
  readonly withDeployment?: boolean;
  /** Operator image for the Deployment; this version's release image by default. */
  readonly image?: string;
  /** The Flux view image the operator gives MiniClusters that name none (its --flux-view-image). */
  readonly fluxViewImage?: string;
  /** The operator leaves the CRD's conversion webhook where it points (its --leave-crd-conversion). */
  readonly leaveCrdConversion?: boolean;
  /** The Deployment's replicas (standbys behind leader election), its watched namespaces, its placement. */
  readonly replicas?: number;
  readonly watchNamespaces?: readonly string[];
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly V1Toleration[];
  /** Namespaces allowed host storage (hostpath and CSI volumes): labelled, created when absent. */
  readonly allowHostStorage?: readonly string[];
  /** How long to wait for the CRD to become Established; 60 s by default. */
  readonly establishTimeoutMs?: number;
  /**
   * With the Deployment: how long to wait for a Ready pod of it (install-wait.ts), 0 for not at all;
   * DEFAULT_OPERATOR_WAIT_SECONDS by default.
   */
  readonly waitSeconds?: number;
  /** Receives one progress line per object; stdout by default. */
  readonly log?: (line: string) => void;
}

export type ApplyOutcome = 'created' | 'configured' | 'unchanged';

export interface InstallResult {
  /** `<kind>[.<group>]/<name>` and what the apply did, in apply order. */
  readonly applied: { readonly object: string; readonly outcome: ApplyOutcome }[];
}

const DEFAULT_ESTABLISH_TIMEOUT_MS = 60_000;
const ESTABLISH_POLL_MS = 250;

/** An RFC 1123 label, as namespace names must be. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function checkNamespaceName(flag: string, name: string): void {
  if (name.length > 63 || !NAMESPACE_NAME.test(name)) {
    throw new InputError([
      `${flag} ${JSON.stringify(name)}: not a valid namespace name ` +
        '(lower-case letters, digits and "-", at most 63 characters, starting and ending alphanumeric)',
    ]);
  }
}

interface Target {
  readonly kc: KubeConfig;
  /** "context X (server Y) of kubeconfig Z", for every error message. */
  readonly where: string;
}

function loadKubeConfig(file: string | undefined): Target {
  const kc = new KubeConfig();
  let source: string;
  if (file !== undefined) {
    if (!existsSync(file)) throw new InputError([`kubeconfig ${file}: no such file`]);
    source = file;
    try {
      kc.loadFromFile(file);
    } catch (error) {
      throw new InputError([`kubeconfig ${file}: cannot load it (${messageOf(error)})`]);
    }
  } else {
    source = process.env.KUBECONFIG || join(homedir(), '.kube', 'config');
    try {
      kc.loadFromDefault();
    } catch (error) {
      throw new InputError([`kubeconfig ${source}: cannot load it (${messageOf(error)})`]);
    }
  }
  const cluster = kc.getCurrentCluster();
  const context = kc.getCurrentContext();
  if (!cluster) {
    throw new InputError([
      `kubeconfig ${source}: no current cluster (current context: ${context || 'none'}); ` +
        'pass --kubeconfig or set the current context',
    ]);
  }
  return { kc, where: `context "${context}" (server ${cluster.server}) of kubeconfig ${source}` };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The Status message of an API error (its body is the raw Status JSON), else its HTTP code. */
function statusMessage(error: { readonly code: number; readonly body: unknown }): string {
  const body = error.body;
  if (typeof body === 'string') {
    try {
      const status = JSON.parse(body) as { message?: unknown };
      if (typeof status.message === 'string') return status.message;
    } catch {
      // not JSON: fall through
    }
    if (body.trim() !== '') return body.trim();
  }
  return `HTTP ${error.code}`;
}

/** One clear error for a failed call: user-fixable causes (access, reachability) are InputErrors. */
function failure(error: unknown, what: string, where: string): Error {
  if (error instanceof InputError) return error;
  if (error instanceof KubeApiError) {
    const message = statusMessage(error);
    if (error.code === 401) {
      return new InputError([
        `${what}: the API server of ${where} rejected the credentials (401: ${message})`,
      ]);
    }
    if (error.code === 403) {
      return new InputError([
        `${what}: forbidden for the user of ${where}: ${message}. Installing needs the right to create ` +
          'CustomResourceDefinitions, ClusterRoles and ClusterRoleBindings (usually cluster-admin).',
      ]);
    }
    return new Error(`${what} on ${where} failed (HTTP ${error.code}): ${message}`);
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = cause && typeof cause.message === 'string' ? `: ${cause.message}` : '';
  return new InputError([`${what}: cannot reach the API server of ${where} (${messageOf(error)}${detail})`]);
}

/** `namespace/flux-operator-system`, `customresourcedefinition.apiextensions.k8s.io/miniclusters...`. */
export function objectRef(object: InstallObject): string {
  const slash = object.apiVersion.indexOf('/');
  const group = slash === -1 ? '' : `.${object.apiVersion.slice(0, slash)}`;
  return `${object.kind.toLowerCase()}${group}/${object.metadata.name}`;
}

async function readIfExists(
  client: ObjectApplier,
  object: InstallObject,
): Promise<KubernetesObject | undefined> {
  const header = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: {
      name: object.metadata.name,
      ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
    },
  };
  try {
    return await client.read(header);
  } catch (error) {
    if (apiErrorCode(error) === 404) return undefined;
    throw error;
  }
}

async function apply(client: ObjectApplier, object: InstallObject, where: string): Promise<ApplyOutcome> {
  const ref = objectRef(object);
  try {
    const before = await readIfExists(client, object);
    const applyIt = (applied: KubernetesObject) => serverSideApply(client, applied, FIELD_MANAGER);
    // A CRD keeps the conversion webhook an operator pointed it at (see conversion-client-config.ts).
    const after =
      object.kind === 'CustomResourceDefinition'
        ? await applyCrdKeepingClientConfig(client, object as KubernetesObject, applyIt)
        : await applyIt(object as KubernetesObject);
    if (before === undefined) return 'created';
    return before.metadata?.resourceVersion === after.metadata?.resourceVersion ? 'unchanged' : 'configured';
  } catch (error) {
    throw failure(error, `applying ${ref}`, where);
  }
}

/**
 * An install that switches between watching every namespace and watching some leaves no binding of
 * the other mode behind (a roleRef cannot change, so the two modes' ClusterRoleBindings have
 * different names): the broad one must not outlive a switch to namespaces.
 */
async function removeOtherModeBinding(
  client: ObjectApplier,
  namespace: string,
  watched: readonly string[],
  where: string,
  log: (line: string) => void,
): Promise<void> {
  const other = watched.length > 0 ? clusterRoleBindingName(namespace) : clusterRoleName(['*'], namespace);
  const header = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: other },
  };
  try {
    await client.delete(header);
    log(`clusterrolebinding.rbac.authorization.k8s.io/${other} deleted (the other watch mode's)`);
  } catch (error) {
    if (apiErrorCode(error) === 404) return;
    throw failure(error, `deleting ClusterRoleBinding ${other}`, where);
  }
}

/**
 * The Roles (and bindings) of namespaces this install watched before and watches no more go: the
 * operator's rights there must not outlive the watch (a switch to watching every namespace removes
 * them all; its ClusterRole covers those namespaces). Found by name and label across namespaces.
 */
async function removeUnwatchedRoles(
  { rbac }: ApiClients,
  namespace: string,
  watched: readonly string[],
  where: string,
  log: (line: string) => void,
): Promise<void> {
  const name = watchedRoleName(namespace);
  const selector = Object.entries(operatorLabels())
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  let stale: string[];
  try {
    const bindings = await rbac.listRoleBindingForAllNamespaces({
      labelSelector: selector,
      fieldSelector: `metadata.name=${name}`,
    });
    stale = bindings.items
      .map((binding) => binding.metadata?.namespace ?? '')
      .filter((each) => each !== '' && !watched.includes(each));
  } catch (error) {
    throw failure(error, `listing the RoleBindings ${name} of formerly watched namespaces`, where);
  }
  for (const each of stale.sort()) {
    for (const kind of ['RoleBinding', 'Role'] as const) {
      try {
        if (kind === 'RoleBinding') await rbac.deleteNamespacedRoleBinding({ name, namespace: each });
        else await rbac.deleteNamespacedRole({ name, namespace: each });
        log(`${kind.toLowerCase()}.rbac.authorization.k8s.io/${name} deleted in ${each} (no longer watched)`);
      } catch (error) {
        if (apiErrorCode(error) === 404) continue;
        throw failure(error, `deleting ${kind} ${name} in ${each}`, where);
      }
    }
  }
}

function describeConditions(conditions: readonly V1CustomResourceDefinitionCondition[]): string {
  if (conditions.length === 0) return 'no conditions yet';
  return conditions
    .map(
      (c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`,
    )
    .join(', ');
}

async function waitEstablished(clients: ApiClients, where: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let conditions: V1CustomResourceDefinitionCondition[] = [];
  for (;;) {
    try {
      const crd = await clients.apiextensions.readCustomResourceDefinition({ name: CRD_NAME });
      conditions = crd.status?.conditions ?? [];
    } catch (error) {
      throw failure(error, `reading CustomResourceDefinition ${CRD_NAME}`, where);
    }
    const condition = (type: string) => conditions.find((c) => c.type === type);
    if (condition('Established')?.status === 'True') return;
    const names = condition('NamesAccepted');
    if (names?.status === 'False') {
      throw new Error(
        `CustomResourceDefinition ${CRD_NAME} on ${where}: its names were not accepted ` +
          `(${names.reason}: ${names.message}); another CRD may already use the kind or short name`,
      );
    }
    if (Date.now() >= deadline) break;
    await sleep(ESTABLISH_POLL_MS);
  }
  throw new Error(
    `CustomResourceDefinition ${CRD_NAME} was applied to ${where} but is not Established after ` +
      `${Math.round(timeoutMs / 1000)} s (${describeConditions(conditions)})`,
  );
}

/**
 * Applies the CRD, the RBAC, the Namespace and the ServiceAccount (and the Deployment with
 * `withDeployment`) with server-side apply (field manager `flux-operator`, force), then waits until
 * the CRD is Established and says where it sends conversions. Without the Deployment the CRD keeps
 * a webhook the API server converts through, else converts nothing until an operator serves it
 * (conversion/install-conversion.ts). Throws InputError for problems the user can fix (kubeconfig, access,
 * reachability, a bad namespace name), Error for the rest; both with a message naming the context.
 */
export async function installCommand(options: InstallCommandOptions = {}): Promise<InstallResult> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const namespace = options.namespace ?? OPERATOR_NAMESPACE;
  checkNamespaceName('--namespace', namespace);
  const { kc, where } = loadKubeConfig(options.kubeconfig);
  const clients = apiClientsFor(kc);
  const client = clients.objects;

  const deploymentOnly = [
    options.replicas !== undefined && '--replicas',
    (options.watchNamespaces?.length ?? 0) > 0 && '--watch-namespace',
    Object.keys(options.nodeSelector ?? {}).length > 0 && '--node-selector',
    (options.tolerations?.length ?? 0) > 0 && '--toleration',
    options.fluxViewImage !== undefined && '--flux-view-image',
    options.leaveCrdConversion === true && '--leave-crd-conversion',
    options.waitSeconds !== undefined && '--wait-seconds',
  ].filter((flag): flag is string => typeof flag === 'string');
  if (!options.withDeployment && deploymentOnly.length > 0) {
    throw new InputError([
      `${deploymentOnly.join(', ')}: only with --with-deployment (they shape the Deployment)`,
    ]);
  }
  for (const watched of options.watchNamespaces ?? []) checkNamespaceName('--watch-namespace', watched);
  for (const allowed of options.allowHostStorage ?? []) checkNamespaceName('--allow-host-storage', allowed);
  if (options.replicas !== undefined && !(Number.isInteger(options.replicas) && options.replicas >= 1)) {
    throw new InputError([`--replicas ${String(options.replicas)}: expected a whole number, 1 or more`]);
  }
  const waitSeconds = options.waitSeconds ?? DEFAULT_OPERATOR_WAIT_SECONDS;
  if (!(Number.isInteger(waitSeconds) && waitSeconds >= 0)) {
    throw new InputError([
      `--wait-seconds ${String(options.waitSeconds)}: expected a whole number of seconds, 0 (do not wait) or more`,
    ]);
  }
  const objects = options.withDeployment
    ? installObjects({
        namespace,
        ...(options.image === undefined ? {} : { image: options.image }),
        ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
        ...(options.watchNamespaces === undefined ? {} : { watchNamespaces: options.watchNamespaces }),
        ...(options.nodeSelector === undefined ? {} : { nodeSelector: options.nodeSelector }),
        ...(options.tolerations === undefined ? {} : { tolerations: options.tolerations }),
        ...(options.fluxViewImage === undefined ? {} : { fluxViewImage: options.fluxViewImage }),
        ...(options.leaveCrdConversion ? { leaveCrdConversion: true } : {}),
        ...(options.allowHostStorage === undefined ? {} : { allowHostStorage: options.allowHostStorage }),
      })
    : crdAndRbacObjects({
        namespace,
        ...(options.allowHostStorage === undefined ? {} : { allowHostStorage: options.allowHostStorage }),
      });
  const watched = options.watchNamespaces ?? [];
  for (const name of watched) {
    const found = await readIfExists(client, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    }).catch((error: unknown) => {
      throw failure(error, `reading namespace ${name}`, where);
    });
    if (found === undefined) {
      throw new InputError([
        `--watch-namespace ${name}: no such namespace on ${where}; create it first (the operator's Role for it lives there)`,
      ]);
    }
  }

  const { transport } = clients;
  try {
    let conversion: InstalledConversion | undefined;
    const applied: { object: string; outcome: ApplyOutcome }[] = [];
    for (const object of objects) {
      let applying = object;
      // Without the Deployment nothing of this install serves the webhook its CRD names.
      if (
        !options.withDeployment &&
        object.kind === 'CustomResourceDefinition' &&
        object.metadata.name === CRD_NAME
      ) {
        const planned = await crdWithoutOperator(transport, object, namespace).catch((error: unknown) => {
          throw failure(error, `choosing the conversion of CustomResourceDefinition ${CRD_NAME}`, where);
        });
        applying = planned.crd;
        conversion = planned.conversion;
      }
      const outcome = await apply(client, applying, where);
      applied.push({ object: objectRef(object), outcome });
      log(`${objectRef(object)} ${outcome}`);
    }
    await removeOtherModeBinding(client, namespace, watched, where, log);
    // Only with the operator's own objects: installing the CRD and RBAC alone says nothing of a watch.
    if (options.withDeployment) await removeUnwatchedRoles(clients, namespace, watched, where, log);
    await waitEstablished(clients, where, options.establishTimeoutMs ?? DEFAULT_ESTABLISH_TIMEOUT_MS);
    log(`customresourcedefinition.apiextensions.k8s.io/${CRD_NAME} established`);
    log(
      conversion
        ? conversionLine(conversion)
        : deploymentConversionLine(
            await readCrdClientConfig(transport).catch((error: unknown) => {
              throw failure(error, `reading CustomResourceDefinition ${CRD_NAME}`, where);
            }),
            installedMiniClusterCrd(namespace).spec.conversion?.webhook.clientConfig,
            options.leaveCrdConversion === true,
          ),
    );
    log(scopeLine(watched));
    if (options.withDeployment && waitSeconds > 0) {
      const names = {
        deployment: `deployment.apps/${OPERATOR_NAME}`,
        namespace,
        selector: Object.entries(operatorSelectorLabels())
          .map(([key, value]) => `${key}=${value}`)
          .join(','),
      };
      const seconds = await waitForOperator(
        operatorReads(clients, namespace, names.selector),
        names,
        waitSeconds,
        log,
      );
      log(`${names.deployment} ready: a pod of it is Ready (waited ${seconds.toFixed(1)} s)`);
    }
    return { applied };
  } finally {
    transport.close();
  }
}

/** One read of the wait, bounded: a read that hangs is retried on the next poll, not waited for. */
const WAIT_READ_TIMEOUT_MS = 10_000;

/** The Deployment and its pods, as the wait reads them; a failed or slow read reads as not there yet. */
function operatorReads(
  { apps, core }: ApiClients,
  namespace: string,
  labelSelector: string,
): OperatorWaitReads {
  return {
    readDeployment: () =>
      settleWithin(
        apps.readNamespacedDeployment({ name: OPERATOR_NAME, namespace }),
        WAIT_READ_TIMEOUT_MS,
        undefined,
      ),
    listPods: () =>
      settleWithin(
        core.listNamespacedPod({ namespace, labelSelector }).then((list) => list.items),
        WAIT_READ_TIMEOUT_MS,
        [],
      ),
  };
}

/** What the install grants, in one line: cluster-wide rights, or the watched namespaces only. */
export function scopeLine(watched: readonly string[]): string {
  return watched.length === 0
    ? 'scope: the operator watches every namespace, with rights on Secrets, pods/exec, Jobs and Services in all of them (cluster-wide); --watch-namespace NAME (Helm: watchNamespaces) limits them to the namespaces named'
    : `scope: the operator watches ${watched.join(', ')} only; its rights on Secrets, pods/exec, Jobs and Services are Roles there, cluster-wide only its own kinds, their CRD, PersistentVolumes and reviews of /metrics tokens`;
}
