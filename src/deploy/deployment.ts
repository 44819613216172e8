/**
 * The operator's Deployment and its pieces. The pieces are exported one by one so the Helm chart's
 * generated include file carries exactly the same settings as install.yaml.
 */
import type {
  V1Container,
  V1PodDisruptionBudget,
  V1ContainerPort,
  V1Deployment,
  V1EnvVar,
  V1PodSecurityContext,
  V1Probe,
  V1SecurityContext,
  V1Service,
  V1Toleration,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import type { Rendered } from '../render/kube-object.ts';
import {
  HEALTH_PORT,
  HEALTH_PORT_NAME,
  LIVENESS_PATH,
  METRICS_PORT,
  METRICS_PORT_NAME,
  OPERATOR_ARGS,
  OPERATOR_COMMAND,
  OPERATOR_CONTAINER_NAME,
  OPERATOR_IMAGE_ENV,
  OPERATOR_NAME,
  OPERATOR_NODE_OPTIONS,
  OPERATOR_RESOURCES,
  READINESS_PATH,
  DEFAULT_FLUX_VIEW_IMAGE,
  FLUX_VIEW_IMAGE_FLAG,
  LEAVE_CRD_CONVERSION_FLAG,
  WEBHOOK_PORT,
  WEBHOOK_PORT_NAME,
  WEBHOOK_SERVICE_NAME,
  WEBHOOK_SERVICE_PORT,
  operatorLabels,
  operatorSelectorLabels,
  webhookServiceArg,
} from './constants.ts';

export interface DeploymentOptions {
  readonly image: string;
  readonly namespace: string;
  /** 1 by default; more replicas are standbys behind leader election. */
  readonly replicas?: number;
  /** Namespaces the operator watches (one `--namespace` each); every namespace when empty. */
  readonly watchNamespaces?: readonly string[];
  /** Where the pod may run (as the Helm values nodeSelector and tolerations). */
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly V1Toleration[];
  /** The Flux view image for MiniClusters that name none (`--flux-view-image`); the operator's default when absent. */
  readonly fluxViewImage?: string;
  /** The operator never points the CRD's conversion webhook at itself (`--leave-crd-conversion`). */
  readonly leaveCrdConversion?: boolean;
}

/** Pod-level security: non-root and the runtime's default seccomp profile (Pod Security "restricted"). */
export function podSecurityContext(): V1PodSecurityContext {
  return { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
}

/** Container-level security: no privilege escalation, no capabilities, read-only root filesystem. */
export function containerSecurityContext(): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function containerPorts(): V1ContainerPort[] {
  return [
    { name: METRICS_PORT_NAME, containerPort: METRICS_PORT, protocol: 'TCP' },
    { name: HEALTH_PORT_NAME, containerPort: HEALTH_PORT, protocol: 'TCP' },
    { name: WEBHOOK_PORT_NAME, containerPort: WEBHOOK_PORT, protocol: 'TCP' },
  ];
}

export function livenessProbe(): V1Probe {
  return {
    httpGet: { path: LIVENESS_PATH, port: HEALTH_PORT_NAME },
    initialDelaySeconds: 15,
    periodSeconds: 20,
  };
}

export function readinessProbe(): V1Probe {
  return {
    httpGet: { path: READINESS_PATH, port: HEALTH_PORT_NAME },
    initialDelaySeconds: 5,
    periodSeconds: 10,
  };
}

/**
 * The pod's name and namespace from the downward API: the leader-election identity, and the
 * namespace of the Lease (the only namespace where the Role lets the operator hold one). And the
 * heap sized from the container's memory limit.
 */
export function operatorEnv(): V1EnvVar[] {
  return [
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'NODE_OPTIONS', value: OPERATOR_NODE_OPTIONS },
  ];
}

/** The operator's own image, installed on burst targets (`flux-operator run --operator-image`). */
export function operatorImageEnv(image: string): V1EnvVar {
  return { name: OPERATOR_IMAGE_ENV, value: image };
}

/** A writable /tmp, since the root filesystem is read-only. */
export function operatorVolumes(): V1Volume[] {
  return [{ name: 'tmp', emptyDir: {} }];
}

export function operatorVolumeMounts(): V1VolumeMount[] {
  return [{ name: 'tmp', mountPath: '/tmp' }];
}

export function operatorContainer(
  options: Pick<
    DeploymentOptions,
    'image' | 'namespace' | 'watchNamespaces' | 'fluxViewImage' | 'leaveCrdConversion'
  >,
): V1Container {
  const { image } = options;
  return {
    name: OPERATOR_CONTAINER_NAME,
    image,
    imagePullPolicy: 'IfNotPresent',
    command: [OPERATOR_COMMAND],
    args: [
      ...OPERATOR_ARGS,
      webhookServiceArg(options.namespace),
      `${FLUX_VIEW_IMAGE_FLAG}=${options.fluxViewImage ?? DEFAULT_FLUX_VIEW_IMAGE}`,
      ...(options.leaveCrdConversion ? [LEAVE_CRD_CONVERSION_FLAG] : []),
      ...(options.watchNamespaces ?? []).map((namespace) => `--namespace=${namespace}`),
    ],
    env: [...operatorEnv(), operatorImageEnv(image)],
    ports: containerPorts(),
    livenessProbe: livenessProbe(),
    readinessProbe: readinessProbe(),
    resources: structuredClone(OPERATOR_RESOURCES) as V1Container['resources'],
    securityContext: containerSecurityContext(),
    volumeMounts: operatorVolumeMounts(),
  };
}

export function operatorDeployment(options: DeploymentOptions): Rendered<V1Deployment> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: OPERATOR_NAME, namespace: options.namespace, labels: operatorLabels() },
    spec: {
      replicas: options.replicas ?? 1,
      selector: { matchLabels: operatorSelectorLabels() },
      template: {
        metadata: { labels: { ...operatorLabels(), ...operatorSelectorLabels() } },
        spec: {
          serviceAccountName: OPERATOR_NAME,
          securityContext: podSecurityContext(),
          terminationGracePeriodSeconds: 10,
          containers: [operatorContainer(options)],
          volumes: operatorVolumes(),
          ...(options.nodeSelector && Object.keys(options.nodeSelector).length > 0
            ? { nodeSelector: { ...options.nodeSelector } }
            : {}),
          ...(options.tolerations && options.tolerations.length > 0
            ? { tolerations: options.tolerations.map((toleration) => ({ ...toleration })) }
            : {}),
        },
      },
    },
  };
}

/**
 * The Service the CRD sends ConversionReviews to: port 443 to the webhook port of every operator pod
 * (the standbys serve conversions too: they share the certificate through its Secret).
 */
export function webhookService(namespace: string): Rendered<V1Service> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: WEBHOOK_SERVICE_NAME, namespace, labels: operatorLabels() },
    spec: {
      selector: operatorSelectorLabels(),
      ports: [
        { name: WEBHOOK_PORT_NAME, port: WEBHOOK_SERVICE_PORT, targetPort: WEBHOOK_PORT_NAME, protocol: 'TCP' },
      ],
    },
  };
}

/**
 * With more than one replica: evictions (a node drained) keep one operator pod, so the conversion
 * webhook's Service always has one to send to. One replica gets none: it would block every drain.
 */
export function operatorDisruptionBudget(namespace: string): Rendered<V1PodDisruptionBudget> {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: OPERATOR_NAME, namespace, labels: operatorLabels() },
    spec: { minAvailable: 1, selector: { matchLabels: operatorSelectorLabels() } },
  };
}
