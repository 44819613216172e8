import type {
  V1Affinity,
  V1Container,
  V1Job,
  V1NodeAffinity,
  V1ObjectMeta,
  V1PodSecurityContext,
  V1PodSpec,
  V1SecurityContext,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import { COMPONENT_BROKER, SECRET_DATA_KEYS, commonLabels, selectorLabels } from '../api/index.ts';
import {
  DEFAULT_BROKER_PORT,
  FORGET_CERTIFICATE_FILE,
  FORGET_CERTIFICATE_RC_PATH,
  ONE_STEP_CLEANUP_FILE,
  ONE_STEP_CLEANUP_RC_PATH,
  SPACK_SOFTWARE_COPY,
  VIEW_INIT_FILE,
  VIEW_SIDECAR_FILE,
  viewInitCommand,
} from '../flux/index.ts';
import { sortedEntries, type Rendered } from './kube-object.ts';
import type { DefaultedContainer, DefaultedMiniCluster, DefaultedServiceContainer } from './model.ts';
import { namespaceOf, type MiniClusterNames } from './names.ts';
import {
  BROKER_CONFIG_FILE,
  CONFIG_DIR,
  CURVE_CERT_FILE,
  CURVE_CERT_MOUNT_DIR,
  ENTRYPOINT_FILE,
  MUNGE_KEY_FILE,
  MUNGE_KEY_MOUNT_DIR,
  OPERATOR_DIR,
  RESOURCE_SPEC_FILE,
  RESTFUL_CREDENTIALS_FILE,
  RESTFUL_MOUNT_DIR,
  VIEW_DIR,
  wrapperFile,
  type PodLayout,
} from './paths.ts';
import { isWrapped, layoutOf } from './layout.ts';
import { containerScripts } from './sidecars.ts';
import { queueLabels } from './queue.ts';
import { RESTFUL_SERVER_FILE_NAMES } from '../restful/server-files.ts';
import { restfulPort, servesRestful } from './restful.ts';
import { storageClaimName } from './storage.ts';
import { containerVolumes, mountsOwnSharedMemory, sharedMemory } from './volumes.ts';

/** Volume names of the operator's own mounts; prefixed so they do not meet the users' names. */
const VOLUME_BROKER_CONFIG = 'flux-operator-broker-config';
const VOLUME_OPERATOR_FILES = 'flux-operator-files';
const VOLUME_CURVE_CERT = 'flux-operator-curve-cert';
const VOLUME_MUNGE_KEY = 'flux-operator-munge-key';
const VOLUME_STATE = 'flux-operator-state';
/** flux.container.medium: Memory: the view (and a Spack view's software) in memory, apart from the state. */
const VOLUME_VIEW_MEMORY = 'flux-operator-view-memory';
const VOLUME_RESTFUL = 'flux-operator-restful';

/** Only the owner may read: Flux refuses a certificate others can read (the entrypoint copies it too). */
const SECRET_FILE_MODE = 0o400;
/**
 * With the view, the brokers run as the container's own user, any uid, which a root-owned 0400
 * file would shut out (Secret volumes belong to root unless the pod sets an fsGroup): the mounts
 * are readable in the container, and the entrypoint keeps only private copies (0400) for Flux.
 */
const VIEW_SECRET_FILE_MODE = 0o444;
const SCRIPT_FILE_MODE = 0o555;
const CONFIG_FILE_MODE = 0o444;

/** What the Flux container mounts besides the always-there files. */
interface FluxMountOptions {
  writesResourceSpec: boolean;
  restful: boolean;
  /** The mode of the Secrets' files. */
  secretMode: number;
  /** The containers' scripts and wrappers in the ConfigMap (file names, see sidecars.ts). */
  scripts: readonly string[];
  /** The view's own memory-backed volume (flux.container.medium: Memory). */
  viewInMemory: boolean;
  /** The flux-view init container's script (Flux from the view). */
  viewInitScript: boolean;
}

/**
 * The state volume's mounts, as every container that has it mounts them: with the view in memory,
 * the memory volume over the view's folder and the Spack software's, each a subPath of it.
 */
function stateMounts(layout: PodLayout): V1VolumeMount[] {
  const state: V1VolumeMount = { name: VOLUME_STATE, mountPath: layout.stateRoot };
  if (!layout.view?.inMemory) return [state];
  return [
    state,
    { name: VOLUME_VIEW_MEMORY, mountPath: layout.view.path, subPath: VIEW_DIR },
    { name: VOLUME_VIEW_MEMORY, mountPath: layout.view.spackSoftware, subPath: SPACK_SOFTWARE_COPY },
  ];
}

function fluxVolumes(names: MiniClusterNames, options: FluxMountOptions): V1Volume[] {
  const operatorFiles = [
    { key: ENTRYPOINT_FILE, path: ENTRYPOINT_FILE, mode: SCRIPT_FILE_MODE },
    // The brokers' rc1 script (FLUX_RC_EXTRA is this mount's folder).
    { key: FORGET_CERTIFICATE_FILE, path: FORGET_CERTIFICATE_RC_PATH, mode: SCRIPT_FILE_MODE },
    // The instance's cleanup in one process (FLUX_MODPROBE_PATH_APPEND is this mount's modprobe/).
    { key: ONE_STEP_CLEANUP_FILE, path: ONE_STEP_CLEANUP_RC_PATH, mode: CONFIG_FILE_MODE },
  ];
  if (options.writesResourceSpec)
    operatorFiles.push({ key: RESOURCE_SPEC_FILE, path: RESOURCE_SPEC_FILE, mode: CONFIG_FILE_MODE });
  if (options.viewInitScript) {
    operatorFiles.push({ key: VIEW_INIT_FILE, path: VIEW_INIT_FILE, mode: SCRIPT_FILE_MODE });
    operatorFiles.push({ key: VIEW_SIDECAR_FILE, path: VIEW_SIDECAR_FILE, mode: SCRIPT_FILE_MODE });
  }
  if (options.restful) {
    for (const file of RESTFUL_SERVER_FILE_NAMES)
      operatorFiles.push({ key: file, path: file, mode: CONFIG_FILE_MODE });
  }
  for (const file of options.scripts) operatorFiles.push({ key: file, path: file, mode: SCRIPT_FILE_MODE });
  const restful: V1Volume[] = options.restful
    ? [
        {
          name: VOLUME_RESTFUL,
          secret: {
            secretName: names.restful,
            items: [{ key: SECRET_DATA_KEYS.restful.credentials, path: RESTFUL_CREDENTIALS_FILE }],
            defaultMode: options.secretMode,
          },
        },
      ]
    : [];
  return [
    {
      name: VOLUME_BROKER_CONFIG,
      configMap: {
        name: names.configMap,
        items: [{ key: BROKER_CONFIG_FILE, path: BROKER_CONFIG_FILE }],
        defaultMode: CONFIG_FILE_MODE,
      },
    },
    {
      name: VOLUME_OPERATOR_FILES,
      configMap: { name: names.configMap, items: operatorFiles, defaultMode: CONFIG_FILE_MODE },
    },
    {
      name: VOLUME_CURVE_CERT,
      secret: {
        secretName: names.curveCertSecret,
        items: [{ key: SECRET_DATA_KEYS.curveCert, path: CURVE_CERT_FILE }],
        defaultMode: options.secretMode,
      },
    },
    {
      name: VOLUME_MUNGE_KEY,
      secret: {
        secretName: names.mungeKeySecret,
        items: [{ key: SECRET_DATA_KEYS.mungeKey, path: MUNGE_KEY_FILE }],
        defaultMode: options.secretMode,
      },
    },
    { name: VOLUME_STATE, emptyDir: {} },
    ...(options.viewInMemory ? [{ name: VOLUME_VIEW_MEMORY, emptyDir: { medium: 'Memory' } }] : []),
    ...restful,
  ];
}

/** The Flux container's mounts: the operator's files and Secrets, and the state volume (the view's). */
function fluxMounts(layout: PodLayout, restful: boolean): V1VolumeMount[] {
  return [
    { name: VOLUME_BROKER_CONFIG, mountPath: CONFIG_DIR, readOnly: true },
    { name: VOLUME_OPERATOR_FILES, mountPath: OPERATOR_DIR, readOnly: true },
    { name: VOLUME_CURVE_CERT, mountPath: CURVE_CERT_MOUNT_DIR, readOnly: true },
    { name: VOLUME_MUNGE_KEY, mountPath: MUNGE_KEY_MOUNT_DIR, readOnly: true },
    ...stateMounts(layout),
    ...(restful ? [{ name: VOLUME_RESTFUL, mountPath: RESTFUL_MOUNT_DIR, readOnly: true }] : []),
  ];
}

/**
 * The init container of a MiniCluster whose Flux comes from the view: run with the view image's own
 * /bin/sh, the view init script (a file of the ConfigMap, so that a new operator build's script does
 * not change a running Job's template) puts the view into the state volume at the mount path, by the image's
 * copy command (this project's view images) or as the Go operator copies its Spack views (the view and
 * /opt/software), and fails naming the image and both layouts otherwise (docs/flux-view.md); the
 * application containers then run Flux from there. Its log's end is its termination message when it
 * fails, so the MiniCluster's status says why.
 */
function viewInitContainer(miniCluster: DefaultedMiniCluster, layout: PodLayout): V1Container {
  const view = miniCluster.spec.flux.container;
  const rendered: V1Container = {
    name: view.name,
    image: view.image,
    imagePullPolicy: pullPolicy({ pullAlways: view.pullAlways }),
    // A sidecar: the brokers' containers start once it runs, and wait for its copy (view-sidecar.sh).
    restartPolicy: 'Always',
    command: viewInitCommand(`${OPERATOR_DIR}/${VIEW_SIDECAR_FILE}`, layout.stateRoot, view.image),
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
  if (view.workingDir !== undefined) rendered.workingDir = view.workingDir;
  if (view.resources !== undefined) rendered.resources = renderResources(view.resources);
  rendered.volumeMounts = [
    { name: VOLUME_OPERATOR_FILES, mountPath: OPERATOR_DIR, readOnly: true },
    ...stateMounts(layout),
  ];
  if (view.securityContext !== undefined)
    rendered.securityContext = renderSecurityContext(view.securityContext);
  return rendered;
}

function shellExec(shell: string, command: string) {
  return { exec: { command: [shell, '-c', command] } };
}

/** What a pod container is rendered from: a MiniCluster container, or a service (runFlux: false). */
export type ContainerFields = Pick<
  DefaultedContainer,
  | 'name'
  | 'image'
  | 'pullAlways'
  | 'imagePullPolicy'
  | 'command'
  | 'workingDir'
  | 'environment'
  | 'secrets'
  | 'ports'
  | 'resources'
  | 'lifeCycle'
  | 'securityContext'
  | 'runFlux'
>;

type SecurityContextModel = NonNullable<
  DefaultedContainer['securityContext'] | DefaultedServiceContainer['securityContext']
>;

/**
 * A container's security context as Kubernetes takes it: privileged first and the capabilities it
 * adds or drops (the settings v1alpha1 has), then the others v1alpha2 takes from core/v1.
 */
export function renderSecurityContext(context: SecurityContextModel): V1SecurityContext {
  const rendered: V1SecurityContext = {};
  if (context.privileged !== undefined) rendered.privileged = context.privileged;
  const add = context.capabilities?.add ?? [];
  const drop = context.capabilities?.drop ?? [];
  if (add.length > 0 || drop.length > 0) {
    rendered.capabilities = {
      ...(add.length > 0 ? { add: [...add] } : {}),
      ...(drop.length > 0 ? { drop: [...drop] } : {}),
    };
  }
  if (context.runAsUser !== undefined) rendered.runAsUser = context.runAsUser;
  if (context.runAsGroup !== undefined) rendered.runAsGroup = context.runAsGroup;
  if (context.runAsNonRoot !== undefined) rendered.runAsNonRoot = context.runAsNonRoot;
  if (context.readOnlyRootFilesystem !== undefined)
    rendered.readOnlyRootFilesystem = context.readOnlyRootFilesystem;
  if (context.allowPrivilegeEscalation !== undefined)
    rendered.allowPrivilegeEscalation = context.allowPrivilegeEscalation;
  if (context.procMount !== undefined) rendered.procMount = context.procMount;
  if (context.seLinuxOptions !== undefined) rendered.seLinuxOptions = { ...context.seLinuxOptions };
  if (context.seccompProfile !== undefined) rendered.seccompProfile = { ...context.seccompProfile };
  return rendered;
}

/** The pull policy: Always with pullAlways, else the one named, else IfNotPresent. */
export function pullPolicy(container: {
  readonly pullAlways: boolean;
  readonly imagePullPolicy?: string | undefined;
}): string {
  return container.pullAlways ? 'Always' : (container.imagePullPolicy ?? 'IfNotPresent');
}

/** What the operator adds to a container of a MiniCluster's pods. */
export interface ContainerAdditions {
  /** The command it runs (the entrypoint, a wrapper). Unset: its own command, with /bin/sh. */
  readonly command?: string[];
  /** Its mounts of the operator's volumes, before its own. */
  readonly mounts?: readonly V1VolumeMount[];
  /** Variables before its own (flux.environment), which its own override. */
  readonly environment?: Readonly<Record<string, string>>;
  /** The API's port, on the Flux container of a RESTful MiniCluster (served by the lead pod only). */
  readonly restfulApiPort?: number;
  /** The shell of its lifecycle hooks. Unset: /bin/sh. */
  readonly hookShell?: string;
}

export function renderResources(
  resources: NonNullable<ContainerFields['resources']>,
): NonNullable<V1Container['resources']> {
  const rendered: NonNullable<V1Container['resources']> = {};
  if (resources.limits) rendered.limits = quantities(resources.limits);
  if (resources.requests) rendered.requests = quantities(resources.requests);
  return rendered;
}

export function renderContainer(
  container: ContainerFields,
  ownMounts: V1VolumeMount[],
  additions: ContainerAdditions = {},
): V1Container {
  const { restfulApiPort } = additions;
  const rendered: V1Container = {
    name: container.name,
    image: container.image,
    imagePullPolicy: pullPolicy(container),
  };
  if (additions.command !== undefined) rendered.command = [...additions.command];
  else if (container.command !== undefined) rendered.command = ['/bin/sh', '-c', container.command];
  if (container.workingDir !== undefined) rendered.workingDir = container.workingDir;
  const own = container.environment ?? {};
  const inherited = sortedEntries(additions.environment).filter(([name]) => !Object.hasOwn(own, name));
  const env: NonNullable<V1Container['env']> = [
    ...inherited.map(([name, value]) => ({ name, value })),
    ...sortedEntries(container.environment).map(([name, value]) => ({ name, value })),
    ...sortedEntries(container.secrets).map(([name, { name: secret, key }]) => ({
      name,
      valueFrom: { secretKeyRef: { name: secret, key } },
    })),
  ];
  if (env.length > 0) rendered.env = env;
  const ports = [
    ...(container.runFlux
      ? [{ name: 'flux-broker', containerPort: DEFAULT_BROKER_PORT, protocol: 'TCP' }]
      : []),
    ...(container.runFlux && restfulApiPort !== undefined
      ? [{ name: 'http', containerPort: restfulApiPort, protocol: 'TCP' }]
      : []),
    ...(container.ports ?? []).map((port) => ({ containerPort: port, protocol: 'TCP' })),
  ];
  if (ports.length > 0) rendered.ports = ports;
  if (container.resources) rendered.resources = renderResources(container.resources);
  const mounts = [...(additions.mounts ?? []), ...ownMounts];
  if (mounts.length > 0) rendered.volumeMounts = mounts;
  const { lifeCycle, securityContext } = container;
  const shell = additions.hookShell ?? '/bin/sh';
  if (lifeCycle?.postStartExec !== undefined || lifeCycle?.preStopExec !== undefined) {
    rendered.lifecycle = {};
    if (lifeCycle.postStartExec !== undefined)
      rendered.lifecycle.postStart = shellExec(shell, lifeCycle.postStartExec);
    if (lifeCycle.preStopExec !== undefined)
      rendered.lifecycle.preStop = shellExec(shell, lifeCycle.preStopExec);
  }
  if (securityContext) rendered.securityContext = renderSecurityContext(securityContext);
  return rendered;
}

/**
 * What the operator adds to a broker pod's container: the Flux container runs the entrypoint with the
 * operator's files and the state volume (the view's too); with the view, its lifecycle hooks run
 * with bash (all an application image needs) and it gets flux.environment. A container beside it
 * runs as it is.
 */
function containerAdditions(
  miniCluster: DefaultedMiniCluster,
  container: DefaultedContainer,
  layout: PodLayout,
  restful: boolean,
): ContainerAdditions {
  const fromView = layout.view !== undefined;
  const viewParts = fromView
    ? { hookShell: '/bin/bash', environment: miniCluster.spec.flux.environment ?? {} }
    : {};
  const state = stateMounts(layout);
  if (isWrapped(container)) {
    return {
      command: ['/bin/bash', `${OPERATOR_DIR}/${wrapperFile(container.name)}`],
      mounts: [{ name: VOLUME_OPERATOR_FILES, mountPath: OPERATOR_DIR, readOnly: true }, ...state],
      ...viewParts,
    };
  }
  // As it is (v1alpha1's way), with the view's volume at hand.
  if (!container.runFlux) return fromView ? { mounts: state } : {};
  return {
    command: ['/bin/bash', `${OPERATOR_DIR}/${ENTRYPOINT_FILE}`],
    mounts: fluxMounts(layout, restful),
    ...(restful ? { restfulApiPort: restfulPort(miniCluster) } : {}),
    ...viewParts,
  };
}

/** The storage of spec.volumes as the containers' volumes mount it: names, and the claim of each. */
export function storageOf(miniCluster: DefaultedMiniCluster): Parameters<typeof containerVolumes>[1] {
  const name = miniCluster.metadata.name;
  return {
    names: new Set(Object.keys(miniCluster.spec.volumes ?? {})),
    claimOf: (volumeName) => storageClaimName(name, volumeName),
  };
}

function podSpec(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
  writesResourceSpec: boolean,
): V1PodSpec {
  const { spec } = miniCluster;
  const restful = servesRestful(miniCluster);
  const layout = layoutOf(miniCluster);
  const fromView = layout.view !== undefined;
  // A RESTful MiniCluster's pods start as root even from the view (the jobs run as the flux user).
  const secretMode = fromView && !restful ? VIEW_SECRET_FILE_MODE : SECRET_FILE_MODE;
  const scripts = containerScripts(miniCluster).map(([file]) => file);
  const volumes: V1Volume[] = fluxVolumes(names, {
    writesResourceSpec,
    restful,
    secretMode,
    scripts,
    viewInMemory: layout.view?.inMemory === true,
    viewInitScript: fromView,
  });
  const storage = storageOf(miniCluster);
  const owned = spec.containers.map((container) => containerVolumes(container, storage));
  // /dev/shm in memory for every container but one that mounts a volume of its own there.
  const shm = sharedMemory(miniCluster);
  const takesShm = owned.map((own) => shm !== undefined && !mountsOwnSharedMemory(own.mounts));
  if (shm !== undefined && takesShm.includes(true)) volumes.push(shm.volume);
  const seenVolumes = new Set(volumes.map((volume) => volume.name));
  const containers = spec.containers.map((container, index) => {
    const own = owned[index] ?? { volumes: [], mounts: [] };
    for (const volume of own.volumes) {
      // Two containers may mount the same named volume; the pod declares it once.
      if (!seenVolumes.has(volume.name)) volumes.push(volume);
      seenVolumes.add(volume.name);
    }
    const additions = containerAdditions(miniCluster, container, layout, restful);
    const shmMount = shm !== undefined && takesShm[index] === true ? [shm.mount] : [];
    return renderContainer(container, own.mounts, {
      ...additions,
      mounts: [...(additions.mounts ?? []), ...shmMount],
    });
  });
  const pullSecrets = [
    ...new Set([
      ...(fromView && spec.flux.container.imagePullSecret !== undefined
        ? [spec.flux.container.imagePullSecret]
        : []),
      ...spec.containers.flatMap((c) => (c.imagePullSecret ? [c.imagePullSecret] : [])),
    ]),
  ];

  const pod: V1PodSpec = {
    // The Job controller names each pod's host `<job>-<index>`; the subdomain makes it resolvable.
    subdomain: names.service,
    // Flux matches the short hostname against broker.toml; the domain goes into the connect URI.
    setHostnameAsFQDN: false,
    restartPolicy: spec.pod?.restartPolicy ?? 'Never',
    // Service environment variables are useless to Flux and slow pod start in busy namespaces.
    enableServiceLinks: false,
    ...(fromView ? { initContainers: [viewInitContainer(miniCluster, layout)] } : {}),
    containers,
    volumes,
  };
  if (spec.shareProcessNamespace === true) pod.shareProcessNamespace = true;
  setPodPlacement(pod, miniCluster, pullSecrets);
  const affinity = brokerAffinity(miniCluster);
  if (affinity !== undefined) pod.affinity = affinity;
  if (spec.pod?.resources !== undefined) pod.resources = { limits: quantities(spec.pod.resources) };
  return pod;
}

/**
 * What every pod of a MiniCluster (brokers and the services pod alike) takes from `spec.pod`: its
 * service account, node selector and tolerations; and the image pull Secrets its containers name.
 */
export function setPodPlacement(
  pod: V1PodSpec,
  miniCluster: DefaultedMiniCluster,
  pullSecrets: readonly string[],
): void {
  if (pullSecrets.length > 0) pod.imagePullSecrets = pullSecrets.map((name) => ({ name }));
  const podOptions = miniCluster.spec.pod;
  if (podOptions?.serviceAccountName !== undefined) pod.serviceAccountName = podOptions.serviceAccountName;
  // No ServiceAccount token unless the spec asks for one: the pods run the users' jobs (the RESTful
  // API's among them), which would act on the Kubernetes API with the account's rights.
  pod.automountServiceAccountToken = podOptions?.automountServiceAccountToken ?? false;
  if (podOptions?.nodeSelector !== undefined)
    pod.nodeSelector = Object.fromEntries(sortedEntries(podOptions.nodeSelector));
  if (podOptions?.tolerations !== undefined) pod.tolerations = podOptions.tolerations.map((t) => ({ ...t }));
  if (podOptions?.schedulerName !== undefined) pod.schedulerName = podOptions.schedulerName;
  if (podOptions?.runtimeClassName !== undefined) pod.runtimeClassName = podOptions.runtimeClassName;
  if (podOptions?.dnsPolicy !== undefined) pod.dnsPolicy = podOptions.dnsPolicy;
  if (podOptions?.hostIPC === true) pod.hostIPC = true;
  if (podOptions?.hostPID === true) pod.hostPID = true;
  if (podOptions?.securityContext !== undefined)
    pod.securityContext = renderPodSecurityContext(podOptions.securityContext);
  const nodeAffinity = requiredNodeAffinity(miniCluster);
  if (nodeAffinity !== undefined) pod.affinity = { nodeAffinity };
}

type PodSecurityContextModel = NonNullable<
  NonNullable<DefaultedMiniCluster['spec']['pod']>['securityContext']
>;

/** The pod's security context as Kubernetes takes it (v1alpha2 takes core/v1's fields). */
export function renderPodSecurityContext(context: PodSecurityContextModel): V1PodSecurityContext {
  const rendered: V1PodSecurityContext = {};
  if (context.runAsUser !== undefined) rendered.runAsUser = context.runAsUser;
  if (context.runAsGroup !== undefined) rendered.runAsGroup = context.runAsGroup;
  if (context.runAsNonRoot !== undefined) rendered.runAsNonRoot = context.runAsNonRoot;
  if (context.supplementalGroups !== undefined) rendered.supplementalGroups = [...context.supplementalGroups];
  if (context.fsGroup !== undefined) rendered.fsGroup = context.fsGroup;
  if (context.fsGroupChangePolicy !== undefined) rendered.fsGroupChangePolicy = context.fsGroupChangePolicy;
  if (context.seLinuxOptions !== undefined) rendered.seLinuxOptions = { ...context.seLinuxOptions };
  if (context.seccompProfile !== undefined) rendered.seccompProfile = { ...context.seccompProfile };
  if (context.sysctls !== undefined) rendered.sysctls = context.sysctls.map((sysctl) => ({ ...sysctl }));
  return rendered;
}

/** `pod.nodeAffinity`: the nodes whose label has one of the listed values (required, operator In). */
function requiredNodeAffinity(miniCluster: DefaultedMiniCluster): V1NodeAffinity | undefined {
  const entries = sortedEntries(miniCluster.spec.pod?.nodeAffinity);
  if (entries.length === 0) return undefined;
  return {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [
        { matchExpressions: entries.map(([key, values]) => ({ key, operator: 'In', values: [...values] })) },
      ],
    },
  };
}

/**
 * The brokers' affinity (v1alpha2, unless network.disableAffinity): preferably in one zone, each on
 * a node of its own, as the Go operator schedules them. Preferences only: a cluster with fewer
 * nodes or one zone still runs them. v1alpha1 MiniClusters have none (their conversion disables it).
 */
function brokerAffinity(miniCluster: DefaultedMiniCluster): V1Affinity | undefined {
  const { network } = miniCluster.spec;
  const nodeAffinity = requiredNodeAffinity(miniCluster);
  if (network.disableAffinity === true) return nodeAffinity === undefined ? undefined : { nodeAffinity };
  const term = (topologyKey: string) => ({
    weight: 100,
    podAffinityTerm: {
      labelSelector: { matchLabels: selectorLabels(miniCluster.metadata.name) },
      topologyKey,
    },
  });
  return {
    ...(nodeAffinity !== undefined ? { nodeAffinity } : {}),
    podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [term('topology.kubernetes.io/zone')] },
    podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [term('kubernetes.io/hostname')] },
  };
}

/**
 * The metadata of a MiniCluster's pods (brokers and the services pod alike): `spec.pod`'s labels and
 * annotations, the shared selector, and the operator's own labels last, so that no user label can
 * take a pod out of its Service or its workload.
 */
export function podMetadata(miniCluster: DefaultedMiniCluster, labels: Record<string, string>): V1ObjectMeta {
  const { pod, network } = miniCluster.spec;
  return {
    labels: { ...sortedObject(pod?.labels), ...sortedObject(network.sharedSelector), ...labels },
    ...(pod?.annotations !== undefined ? { annotations: sortedObject(pod.annotations) } : {}),
  };
}

/**
 * The indexed Job: one pod per broker, `parallelism = completions = size`. The lead broker (index 0)
 * decides the outcome: its success completes the Job (the workers then stop), and with no retries a
 * failure of any broker fails it, as a failed rank would fail the Flux instance.
 */
export function renderJob(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
  writesResourceSpec: boolean,
): Rendered<V1Job> {
  const { spec, metadata } = miniCluster;
  const labels = commonLabels(metadata.name, COMPONENT_BROKER);
  const template: NonNullable<V1Job['spec']>['template'] = {
    metadata: podMetadata(miniCluster, labels),
    spec: podSpec(miniCluster, names, writesResourceSpec),
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: names.job,
      namespace: namespaceOf(miniCluster),
      // Kueue's labels of the MiniCluster (its queue) reach the Job; spec.jobLabels win (render/queue.ts).
      labels: { ...queueLabels(metadata.labels), ...sortedObject(spec.jobLabels), ...labels },
    },
    spec: {
      completionMode: 'Indexed',
      completions: spec.size,
      parallelism: spec.size,
      backoffLimit: spec.backoffLimit ?? 0,
      activeDeadlineSeconds: spec.deadlineSeconds,
      successPolicy: { rules: [{ succeededIndexes: '0' }] },
      template,
    },
  };
}

/** Quantities as the API returns them (strings), so applied and live objects compare equal. */
export function quantities(map: Readonly<Record<string, string | number>>): Record<string, string> {
  return Object.fromEntries(sortedEntries(map).map(([name, value]) => [name, String(value)]));
}

export function sortedObject(map: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(sortedEntries(map));
}
