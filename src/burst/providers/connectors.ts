/**
 * Connectors of `provider: gke` and `provider: eks` BurstTargets (`connectTarget`'s `providers`):
 * from a BurstTarget to a kubeconfig of the cloud cluster it names, creating the cluster when it is
 * absent and installing the operator there once it is ready.
 *
 * - Credentials: from `credentialsSecret` when set (GKE: key `credentials.json`, a service-account
 *   key; EKS: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, optional `AWS_SESSION_TOKEN`), else the
 *   provider's default chain (workload identity). They stay in this process: messages name the
 *   Secret and key, never a value, and every message is scrubbed.
 * - Never waits for the cloud: while the cluster is created the result is a `Provisioning` failure,
 *   so the BurstTarget controller checks again with its backoff (5 s doubling to 5 min).
 * - Ready: the provider's kubeconfig (bearer token, no exec plugin), checked like a kubeconfig
 *   Secret, then the operator's install (CRDs, RBAC, Deployment) applied there with server-side
 *   apply, once per target generation and API server (re-applied after an operator restart).
 * - `deleteProvisioned` is one step of deleting the cloud cluster of a BurstTarget, for a finalizer.
 * - Only the cluster made for this BurstTarget (ownership.ts: marked with its uid at creation) is
 *   adopted, installed into or deleted. A cluster of that name without the mark, or with another
 *   BurstTarget's uid, is refused with `ClusterNotOwned` (naming it, why, and what to do instead),
 *   and `deleteProvisioned` leaves it alone: the finalizer goes, the cluster stays.
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { DefaultedBurstTarget } from '../../api/index.ts';
import { apiErrorCode, describeApiError } from '../../kube/api-errors.ts';
// The installer and the kubeconfig check load the official client: imported on first use.
import type { InstallOperator } from '../install-operator.ts';
import type { ProviderConnector, ProviderKubeConfig, ReadSecret } from '../target-connection.ts';
import { failure, type TargetFailure, type TargetFailureReason } from '../target-errors.ts';
import {
  ProviderError,
  errorText,
  scrub,
  NOT_OWNED,
  type ClusterProvider,
  type ProviderKind,
  type ProvisionState,
} from './cluster-provider.ts';
// The cloud SDKs load only when a target of theirs is connected: they are most of what the
// operator would otherwise import at start (docs/performance.md), and most installs use neither.
import type { EksClusterSpec, EksProviderOptions } from './eks-provider.ts';
import type { GkeClusterSpec, GkeProvider, GkeProviderOptions } from './gke-provider.ts';
import { namespaceOf, namespacedName } from '../../api/index.ts';

/** Key of the service-account key JSON in a GKE `credentialsSecret`. */
export const GKE_CREDENTIALS_KEY = 'credentials.json';
export const AWS_ACCESS_KEY_ID_KEY = 'AWS_ACCESS_KEY_ID';
export const AWS_SECRET_ACCESS_KEY_KEY = 'AWS_SECRET_ACCESS_KEY';
export const AWS_SESSION_TOKEN_KEY = 'AWS_SESSION_TOKEN';

export interface ProviderConnectorsOptions {
  readonly readSecret: ReadSecret;
  /** SDK options of the providers (transport seams, clocks); credentials come from the target. */
  readonly providerOptions?: {
    readonly gke?: Omit<GkeProviderOptions, 'serviceAccountJson'>;
    readonly eks?: Omit<EksProviderOptions, 'credentials'>;
  };
  /** Default: `installOperatorObjects` with `operatorImage` and `operatorNamespace`. */
  readonly installOperator?: InstallOperator;
  readonly operatorImage?: string;
  readonly operatorNamespace?: string;
}

/** One step of deleting a BurstTarget's cloud cluster: `done` once the cloud says it is gone. */
export type DeleteProvisionedOutcome =
  { readonly ok: true; readonly done: boolean; readonly message: string } | TargetFailure;

export interface ProviderConnectors {
  readonly gke: ProviderConnector;
  readonly eks: ProviderConnector;
  /**
   * Starts (or continues) deleting the cloud cluster of a gke/eks BurstTarget; call again (with
   * backoff) until `done`, then remove the finalizer. A kubeconfig target is `done` at once.
   */
  readonly deleteProvisioned: (target: DefaultedBurstTarget) => Promise<DeleteProvisionedOutcome>;
}

/** A provider bound to one target's spec and credentials, and what its messages must not show. */
interface Bound<Spec> {
  readonly kind: ProviderKind;
  readonly provider: ClusterProvider<Spec> & { close(): Promise<void> };
  readonly spec: Spec;
  /** `GKE cluster p/l/name`, `EKS cluster region/name`. */
  readonly source: string;
  /** The spec field naming the cluster: `spec.gke.clusterName`, `spec.eks.clusterName`. */
  readonly clusterField: string;
  readonly secrets: readonly string[];
}

type BindResult<Spec> = { readonly ok: true; readonly bound: Bound<Spec> } | TargetFailure;

/** Error codes (GKE) and names (EKS) the cloud gives for bad or expired credentials. */
const UNAUTHORIZED_CODES = new Set([
  'UNAUTHENTICATED',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'CredentialsProviderError',
]);
/** ... and for credentials that may not do what was asked. */
const FORBIDDEN_CODES = new Set(['PERMISSION_DENIED', 'AccessDeniedException', 'AccessDenied']);

function secretText(secret: V1Secret, key: string): string | undefined {
  const encoded = secret.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}

type SecretValues =
  { readonly ok: true; readonly values: Record<string, string | undefined> } | TargetFailure;

/**
 * Reads `keys` (and `optionalKeys`) of the credentials Secret. Messages name the Secret, the field
 * and the keys, never a value.
 */
async function readCredentials(
  target: DefaultedBurstTarget,
  field: string,
  secretName: string,
  keys: readonly string[],
  optionalKeys: readonly string[],
  readSecret: ReadSecret,
  example: string,
): Promise<SecretValues> {
  const namespace = namespaceOf(target);
  const where = `Secret ${namespace}/${secretName}`;
  let secret: V1Secret | undefined;
  try {
    secret = await readSecret(namespace, secretName);
  } catch (error) {
    if (apiErrorCode(error) !== 403) throw error;
    return failure(
      'Forbidden',
      `the operator may not read ${where} (${describeApiError(error)}); grant its ServiceAccount get on secrets in ${namespace}`,
    );
  }
  if (!secret) {
    return failure(
      'SecretMissing',
      `${where} (${field}) does not exist; create it with the cloud credentials under ${keys.join(', ')}, e.g. kubectl create secret generic ${secretName} -n ${namespace} ${example}`,
    );
  }
  const values: Record<string, string | undefined> = {};
  for (const key of [...keys, ...optionalKeys]) {
    const text = secretText(secret, key)?.trim();
    values[key] = text === '' ? undefined : text;
  }
  const missing = keys.filter((key) => values[key] === undefined);
  if (missing.length > 0) {
    const present = Object.keys(secret.data ?? {}).sort();
    return failure(
      'KeyMissing',
      `${where} (${field}) has no (or an empty) key ${missing.join(', ')}${present.length > 0 ? `; it has ${present.join(', ')}` : ''}; add it`,
    );
  }
  return { ok: true, values };
}

/** The failure for an error of a provider call, its message scrubbed again with `secrets`. */
function providerFailure(
  source: string,
  what: string,
  error: unknown,
  secrets: readonly string[],
): TargetFailure {
  const code = error instanceof ProviderError ? error.code : undefined;
  const text = scrub(`${source}: ${what} failed: ${errorText(error)}`, secrets);
  let reason: TargetFailureReason = 'ProvisionFailed';
  let hint = 'fix the spec or the cloud project/account and it is checked again';
  if (code !== undefined && UNAUTHORIZED_CODES.has(code)) {
    reason = 'Unauthorized';
    hint =
      'the cloud rejected the credentials: update the credentials Secret (or the workload identity binding)';
  } else if (code !== undefined && FORBIDDEN_CODES.has(code)) {
    reason = 'Forbidden';
    hint =
      'grant the credentials the permissions listed in src/burst/providers/README.md (GKE: roles/container.admin; EKS: eks:* on the cluster and iam:PassRole on its roles)';
  }
  return failure(reason, `${text}; ${hint}`);
}

/** The failure while a cluster is not Ready: Provisioning (checked again) or ProvisionFailed. */
function notReady(source: string, state: ProvisionState, secrets: readonly string[]): TargetFailure {
  const message = scrub(state.message, secrets);
  switch (state.phase) {
    case 'Error':
      return failure(
        'ProvisionFailed',
        `${source} failed: ${message}; fix the cause in the cloud console, then delete the cluster there and the operator creates it again`,
      );
    case 'Deleting':
      return failure(
        'Provisioning',
        `${source} is being deleted (${message}); it is created again once it is gone`,
      );
    default:
      return failure('Provisioning', `${source} is being created (${message}); checked again shortly`);
  }
}

/** The uid every cluster of `target` is marked with, or why there is none. */
function ownerUidOf(target: DefaultedBurstTarget): { ok: true; uid: string } | TargetFailure {
  const uid = target.metadata.uid;
  if (uid === undefined || uid === '') {
    return failure(
      'ProvisionFailed',
      'the BurstTarget has no metadata.uid, which marks the cloud cluster made for it; only BurstTargets read from the API server can provision',
    );
  }
  return { ok: true, uid };
}

/**
 * The condition of a BurstTarget naming a cluster that exists but is not its own: which cluster,
 * why (`state.message`), what the operator does about it (nothing) and what to do instead.
 */
function notOwned(source: string, clusterField: string, state: ProvisionState, secrets: readonly string[]) {
  return failure(
    'ClusterNotOwned',
    scrub(
      `${source} is not this BurstTarget's: ${state.message}. The operator adopts, installs itself into and deletes only a cluster it made for this BurstTarget, so it leaves this one alone and will not delete it with the BurstTarget; set ${clusterField} to a cluster that does not exist yet (the operator creates it), or, to burst to a cluster you manage yourself, use a BurstTarget with provider: kubeconfig and a kubeconfig Secret of it`,
      secrets,
    ),
  );
}

function bindGke(target: DefaultedBurstTarget, options: ProviderConnectorsOptions) {
  return async (): Promise<BindResult<GkeClusterSpec>> => {
    const gke = target.spec.gke;
    if (!gke) return failure('ProvisionFailed', 'spec.gke is required when provider is gke');
    const owner = ownerUidOf(target);
    if (!owner.ok) return owner;
    let serviceAccountJson: string | undefined;
    if (gke.credentialsSecret !== undefined) {
      const read = await readCredentials(
        target,
        'spec.gke.credentialsSecret',
        gke.credentialsSecret,
        [GKE_CREDENTIALS_KEY],
        [],
        options.readSecret,
        `--from-file=${GKE_CREDENTIALS_KEY}=<service-account-key.json>`,
      );
      if (!read.ok) return read;
      serviceAccountJson = read.values[GKE_CREDENTIALS_KEY];
    }
    const secrets = serviceAccountJson === undefined ? [] : [serviceAccountJson];
    const where = `Secret ${namespaceOf(target)}/${gke.credentialsSecret ?? ''} key ${GKE_CREDENTIALS_KEY}`;
    const { GkeProvider } = await import('./gke-provider.ts');
    let provider: GkeProvider;
    try {
      provider = new GkeProvider({
        ...options.providerOptions?.gke,
        ...(serviceAccountJson === undefined ? {} : { serviceAccountJson }),
      });
    } catch (error) {
      return failure(
        'InvalidCredentials',
        scrub(
          `${where}: ${errorText(error)}; put a service account key there (gcloud iam service-accounts keys create)`,
          secrets,
        ),
      );
    }
    return {
      ok: true,
      bound: {
        kind: 'gke',
        provider,
        spec: {
          project: gke.project,
          location: gke.location,
          clusterName: gke.clusterName,
          machineType: gke.machineType,
          nodeCount: gke.nodeCount,
          ownerUid: owner.uid,
        },
        source: `GKE cluster ${gke.project}/${gke.location}/${gke.clusterName}`,
        clusterField: 'spec.gke.clusterName',
        secrets,
      },
    };
  };
}

function bindEks(target: DefaultedBurstTarget, options: ProviderConnectorsOptions) {
  return async (): Promise<BindResult<EksClusterSpec>> => {
    const eks = target.spec.eks;
    if (!eks) return failure('ProvisionFailed', 'spec.eks is required when provider is eks');
    const owner = ownerUidOf(target);
    if (!owner.ok) return owner;
    let credentials: EksProviderOptions['credentials'];
    if (eks.credentialsSecret !== undefined) {
      const read = await readCredentials(
        target,
        'spec.eks.credentialsSecret',
        eks.credentialsSecret,
        [AWS_ACCESS_KEY_ID_KEY, AWS_SECRET_ACCESS_KEY_KEY],
        [AWS_SESSION_TOKEN_KEY],
        options.readSecret,
        `--from-literal=${AWS_ACCESS_KEY_ID_KEY}=... --from-literal=${AWS_SECRET_ACCESS_KEY_KEY}=...`,
      );
      if (!read.ok) return read;
      const sessionToken = read.values[AWS_SESSION_TOKEN_KEY];
      credentials = {
        accessKeyId: read.values[AWS_ACCESS_KEY_ID_KEY] ?? '',
        secretAccessKey: read.values[AWS_SECRET_ACCESS_KEY_KEY] ?? '',
        ...(sessionToken === undefined ? {} : { sessionToken }),
      };
    }
    const secrets = credentials
      ? [credentials.secretAccessKey, credentials.accessKeyId, credentials.sessionToken ?? '']
      : [];
    const { EksProvider } = await import('./eks-provider.ts');
    const provider = new EksProvider({
      ...options.providerOptions?.eks,
      ...(credentials ? { credentials } : {}),
    });
    return {
      ok: true,
      bound: {
        kind: 'eks',
        provider,
        spec: {
          region: eks.region,
          clusterName: eks.clusterName,
          roleArn: eks.roleArn,
          nodeRoleArn: eks.nodeRoleArn,
          subnetIds: [...eks.subnetIds],
          instanceTypes: [eks.instanceType],
          nodeCount: eks.nodeCount,
          ...(eks.kubernetesVersion === undefined ? {} : { kubernetesVersion: eks.kubernetesVersion }),
          ownerUid: owner.uid,
        },
        source: `EKS cluster ${eks.region}/${eks.clusterName}`,
        clusterField: 'spec.eks.clusterName',
        secrets,
      },
    };
  };
}

/** The end of a deletion that leaves a cluster which is not this BurstTarget's where it is. */
function leftAlone(bound: Bound<unknown>, why: string): DeleteProvisionedOutcome {
  return {
    ok: true,
    done: true,
    message: scrub(
      `${bound.source} is left alone, not deleted: it is not this BurstTarget's (${why})`,
      bound.secrets,
    ),
  };
}

function targetKey(target: DefaultedBurstTarget): string {
  return namespacedName(target);
}

/** Connectors of the GKE and EKS providers for `connectTarget` (and the Manager's `providers`). */
export function providerConnectors(options: ProviderConnectorsOptions): ProviderConnectors {
  const install: InstallOperator =
    options.installOperator ??
    (async (config) =>
      (await import('../install-operator.ts')).installOperatorObjects(config, {
        ...(options.operatorImage === undefined ? {} : { image: options.operatorImage }),
        ...(options.operatorNamespace === undefined ? {} : { namespace: options.operatorNamespace }),
      }));
  /** Target key -> `uid/generation/server` of the last successful install. */
  const installed = new Map<string, string>();

  async function connect<Spec>(
    target: DefaultedBurstTarget,
    bind: () => Promise<BindResult<Spec>>,
  ): Promise<ProviderKubeConfig> {
    const bindResult = await bind();
    if (!bindResult.ok) return bindResult;
    const { provider, spec, source, clusterField } = bindResult.bound;
    const secrets = [...bindResult.bound.secrets];
    try {
      let state: ProvisionState;
      try {
        state = await provider.ensureCluster(spec);
      } catch (error) {
        return providerFailure(source, 'ensuring the cluster', error, secrets);
      }
      // Checked before anything else uses the cluster: a kubeconfig of it, or the install there.
      if (state.phase === 'NotOwned') return notOwned(source, clusterField, state, secrets);
      if (state.phase !== 'Ready') return notReady(source, state, secrets);
      let text: string;
      try {
        text = await provider.kubeconfig(spec);
      } catch (error) {
        return providerFailure(source, 'getting a kubeconfig', error, secrets);
      }
      const { checkKubeconfig } = await import('../target-kubeconfig.ts');
      const checked = checkKubeconfig(text, `the kubeconfig of ${source}`);
      if (!checked.ok) return failure('InvalidKubeconfig', scrub(checked.message, secrets));
      const token = checked.config.getCurrentUser()?.token;
      if (token) secrets.push(token);
      const server = checked.config.getCurrentCluster()?.server ?? '';
      const key = targetKey(target);
      const stamp = `${target.metadata.uid ?? ''}/${target.metadata.generation ?? ''}/${server}`;
      if (installed.get(key) !== stamp) {
        try {
          await install(checked.config, target);
        } catch (error) {
          installed.delete(key);
          const detail = apiErrorCode(error) === undefined ? errorText(error) : describeApiError(error);
          return failure(
            'InstallFailed',
            scrub(
              `installing the operator on ${source} (${server}) failed: ${detail}; it is tried again at the next check`,
              secrets,
            ),
          );
        }
        installed.set(key, stamp);
      }
      return { ok: true, config: checked.config, source, user: checked.user };
    } finally {
      await provider.close().catch(() => undefined);
    }
  }

  async function deleteProvisioned(target: DefaultedBurstTarget): Promise<DeleteProvisionedOutcome> {
    const provider = target.spec.provider;
    installed.delete(targetKey(target));
    if (provider === 'kubeconfig') return { ok: true, done: true, message: 'nothing was provisioned' };
    const bind: () => Promise<BindResult<GkeClusterSpec> | BindResult<EksClusterSpec>> =
      provider === 'gke' ? bindGke(target, options) : bindEks(target, options);
    const bindResult = await bind();
    if (!bindResult.ok) return bindResult;
    const bound = bindResult.bound as Bound<unknown>;
    try {
      const state = await bound.provider.describe(bound.spec);
      if (state.phase === 'Absent') return { ok: true, done: true, message: `${bound.source} is deleted` };
      if (state.phase === 'NotOwned') return leftAlone(bound, state.message);
      await bound.provider.deleteCluster(bound.spec);
      return {
        ok: true,
        done: false,
        message: scrub(`deleting ${bound.source} (${state.message})`, bound.secrets),
      };
    } catch (error) {
      // Its marks changed between the two reads: still not this BurstTarget's to delete.
      if (error instanceof ProviderError && error.code === NOT_OWNED) return leftAlone(bound, error.message);
      return providerFailure(bound.source, 'deleting the cluster', error, bound.secrets);
    } finally {
      await bound.provider.close().catch(() => undefined);
    }
  }

  return {
    gke: (target) => connect(target, bindGke(target, options)),
    eks: (target) => connect(target, bindEks(target, options)),
    deleteProvisioned,
  };
}
