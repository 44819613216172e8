/**
 * The operator's install files, generated from src/deploy so that install.yaml, the Helm chart and
 * `flux-operator install` cannot drift apart: deploy/install.yaml (every object), and the parts of the
 * Helm chart that carry the CRD, the RBAC rules, the container settings and the versions. The chart's
 * other templates (deploy/helm/flux-operator/templates/*.yaml) are hand-written and include these.
 */
import { stringify } from 'yaml';
import { burstTargetCrd } from '../src/api/burst-target-crd.ts';
import { miniClusterCrd } from '../src/api/minicluster-crd.ts';
import { LABEL_APP_COMPONENT } from '../src/api/shared/labels.ts';
import {
  HOST_STORAGE_ALLOWED,
  HOST_STORAGE_HELM_VALUE,
  HOST_STORAGE_LABEL,
} from '../src/api/shared/host-storage.ts';
import {
  DEFAULT_FLUX_VIEW_IMAGE,
  DEFAULT_OPERATOR_IMAGE,
  CLUSTER_RULES,
  LEADER_ELECTION_RULES,
  NAMESPACED_RULES,
  WEBHOOK_SECRET_RULES,
  hostStoragePolicy,
  OPERATOR_IMAGE_REPOSITORY,
  OPERATOR_NAME,
  OPERATOR_RESOURCES,
  OPERATOR_RULES,
  OPERATOR_VERSION,
  SERVE_ARGS,
  OPERATOR_COMMAND,
  OPERATOR_COMPONENT,
  containerPorts,
  containerSecurityContext,
  installObjects,
  livenessProbe,
  multiDocumentYaml,
  operatorEnv,
  operatorVolumeMounts,
  operatorVolumes,
  podSecurityContext,
  readinessProbe,
  rulesYaml,
} from '../src/deploy/index.ts';
import { generatedHeader } from './generated-header.ts';

export const INSTALL_YAML_PATH = 'deploy/install.yaml';
export const CHART_PATH = 'deploy/helm/flux-operator';
export const CHART_CRD_PATH = `${CHART_PATH}/crds/minicluster.yaml`;
export const CHART_BURST_TARGET_CRD_PATH = `${CHART_PATH}/crds/burst-target.yaml`;
export const CHART_GENERATED_TEMPLATE_PATH = `${CHART_PATH}/templates/_generated.tpl`;

/** Named templates of the chart's _generated.tpl: name -> YAML body. */
export function chartIncludes(): Record<string, string> {
  const yaml = (value: unknown) => stringify(value, { lineWidth: 0 });
  return {
    'flux-operator.clusterRoleRules': rulesYaml(OPERATOR_RULES),
    'flux-operator.leaderElectionRules': rulesYaml(LEADER_ELECTION_RULES),
    'flux-operator.clusterOnlyRules': rulesYaml(CLUSTER_RULES),
    'flux-operator.namespacedRules': rulesYaml(NAMESPACED_RULES),
    'flux-operator.webhookSecretRules': rulesYaml(WEBHOOK_SECRET_RULES),
    'flux-operator.hostStoragePolicySpec': yaml(hostStoragePolicy().spec),
    'flux-operator.hostStorageLabel': yaml({
      key: HOST_STORAGE_LABEL,
      operator: 'NotIn',
      values: [HOST_STORAGE_ALLOWED],
    }),
    'flux-operator.componentLabels': yaml({ [LABEL_APP_COMPONENT]: OPERATOR_COMPONENT }),
    'flux-operator.command': yaml([OPERATOR_COMMAND]),
    'flux-operator.serveArgs': yaml(SERVE_ARGS),
    'flux-operator.env': yaml(operatorEnv()),
    'flux-operator.ports': yaml(containerPorts()),
    'flux-operator.probes': yaml({ livenessProbe: livenessProbe(), readinessProbe: readinessProbe() }),
    'flux-operator.podSecurityContext': yaml(podSecurityContext()),
    'flux-operator.containerSecurityContext': yaml(containerSecurityContext()),
    'flux-operator.volumeMounts': yaml(operatorVolumeMounts()),
    'flux-operator.volumes': yaml(operatorVolumes()),
  };
}

function generatedTemplate(): string {
  const header = generatedHeader('src/deploy', (line) => line);
  const defines = Object.entries(chartIncludes()).map(
    ([name, body]) => `{{- define "${name}" -}}\n${body}{{- end }}\n`,
  );
  return `{{/*\n${header}\nNamed templates the chart's hand-written templates include.\n*/}}\n${defines.join('\n')}`;
}

function chartYaml(): string {
  return `${generatedHeader('src/deploy/constants.ts')}
apiVersion: v2
name: ${OPERATOR_NAME}
description: A Kubernetes operator for the Flux Framework (MiniClusters, connected MiniClusters and bursting)
type: application
version: ${OPERATOR_VERSION}
appVersion: "${OPERATOR_VERSION}"
home: https://github.com/flux-framework/flux-operator
keywords:
  - flux-framework
  - hpc
  - operator
`;
}

function valuesYaml(): string {
  const resources = stringify({ resources: OPERATOR_RESOURCES }, { lineWidth: 0 });
  return `${generatedHeader('src/deploy/constants.ts')}

image:
  repository: ${OPERATOR_IMAGE_REPOSITORY}
  # Defaults to the chart's appVersion (${DEFAULT_OPERATOR_IMAGE}).
  tag: ""
  pullPolicy: IfNotPresent
imagePullSecrets: []
nameOverride: ""
fullnameOverride: ""

# More than one replica only adds standbys: one leader reconciles at a time.
replicas: 1
# Elect a leader through a Lease in the release namespace. Keep it on when replicas > 1.
leaderElect: true
# The operator's --log-level (empty: the operator's default).
logLevel: ""
# The operator's --concurrency, MiniClusters reconciled in parallel (empty: the operator's default).
concurrency: ""
# Namespaces to watch (one --namespace flag each); empty: every namespace. With some, the operator's
# rights to Secrets, pods, Jobs, Services... are a Role in each of them (they must exist), and its
# ClusterRole keeps only what must be cluster-wide (docs/security.md).
watchNamespaces: []
# Namespaces whose MiniClusters may use storage that reaches the node (hostpath and CSI spec.volumes,
# hostPath and csiDriver volumes): the admission policy lets them through and the operator runs them
# (its --allow-host-storage). Elsewhere only namespaces labelled ${HOST_STORAGE_LABEL}=${HOST_STORAGE_ALLOWED}.
${HOST_STORAGE_HELM_VALUE}: []
# The Flux view image MiniClusters copy Flux from when they name none (the operator's --flux-view-image).
fluxViewImage: ${DEFAULT_FLUX_VIEW_IMAGE}
# Serve conversions but leave the CRD's conversion webhook where it points (the operator's
# --leave-crd-conversion): for a release beside another operator that holds the CRD.
leaveCrdConversion: false

${resources}
podAnnotations: {}
nodeSelector: {}
tolerations: []
affinity: {}
`;
}

export function deployFiles(): { path: string; content: () => string }[] {
  return [
    {
      path: INSTALL_YAML_PATH,
      content: () => `${generatedHeader('src/deploy')}\n${multiDocumentYaml(installObjects())}`,
    },
    {
      path: CHART_CRD_PATH,
      content: () =>
        `${generatedHeader('src/api/schema.ts')}\n${stringify(miniClusterCrd(), { lineWidth: 0 })}`,
    },
    {
      path: CHART_BURST_TARGET_CRD_PATH,
      content: () =>
        `${generatedHeader('src/api/burst-target-schema.ts')}\n${stringify(burstTargetCrd(), { lineWidth: 0 })}`,
    },
    { path: CHART_GENERATED_TEMPLATE_PATH, content: generatedTemplate },
    { path: `${CHART_PATH}/Chart.yaml`, content: chartYaml },
    { path: `${CHART_PATH}/values.yaml`, content: valuesYaml },
  ];
}
