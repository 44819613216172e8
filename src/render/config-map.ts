import type { V1ConfigMap } from '@kubernetes/client-node';
import { COMPONENT_CONFIG, commonLabels } from '../api/index.ts';
import {
  FORGET_CERTIFICATE_FILE,
  ONE_STEP_CLEANUP_FILE,
  VIEW_INIT_FILE,
  VIEW_SIDECAR_FILE,
  brokerConfigToml,
  entrypointScript,
  forgetCertificateScript,
  oneStepCleanupScript,
  resourceSpecJson,
  viewInitScript,
  viewSidecarScript,
} from '../flux/index.ts';
import {
  brokerConfigInput,
  brokerHosts,
  entrypointInput,
  fluxContainer,
  operatorWritesResourceSpec,
} from './flux-inputs.ts';
import type { Rendered } from './kube-object.ts';
import type { DefaultedMiniCluster } from './model.ts';
import { namespaceOf, type MiniClusterNames } from './names.ts';
import { BROKER_CONFIG_FILE, ENTRYPOINT_FILE, RESOURCE_SPEC_FILE } from './paths.ts';
import { restfulServerFiles } from '../restful/server-files.ts';
import { servesRestful } from './restful.ts';
import { containerScripts } from './sidecars.ts';
import { usesFluxView } from './layout.ts';
import { placementInput } from './placement.ts';

/** broker.toml: the user's own (`flux.brokerConfig`) or the generated one. */
export function brokerConfigText(miniCluster: DefaultedMiniCluster, names: MiniClusterNames): string {
  return miniCluster.spec.flux.brokerConfig ?? brokerConfigToml(brokerConfigInput(miniCluster, names));
}

/**
 * The ConfigMap with broker.toml, the entrypoint, (when cores are known) R, (Flux from the view) the
 * init container's script and (RESTful mode) the API server's program. No secret material.
 */
export function renderConfigMap(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
): Rendered<V1ConfigMap> {
  const data: Record<string, string> = {
    [BROKER_CONFIG_FILE]: brokerConfigText(miniCluster, names),
    [ENTRYPOINT_FILE]: entrypointScript(entrypointInput(miniCluster, names)),
    [FORGET_CERTIFICATE_FILE]: forgetCertificateScript(),
    [ONE_STEP_CLEANUP_FILE]: oneStepCleanupScript(),
  };
  const container = fluxContainer(miniCluster);
  const { cores } = container;
  if (operatorWritesResourceSpec(miniCluster) && cores !== undefined) {
    const gpus = placementInput(miniCluster, container).gpus;
    data[RESOURCE_SPEC_FILE] = resourceSpecJson({
      hosts: brokerHosts(miniCluster),
      coresPerNode: cores,
      ...(gpus !== undefined ? { gpusPerNode: gpus } : {}),
    });
  }
  // The server's program only: its credentials are in the Secret <name>-restful.
  if (servesRestful(miniCluster)) Object.assign(data, restfulServerFiles());
  // The flux-view sidecar's command and the copy it runs.
  if (usesFluxView(miniCluster)) {
    data[VIEW_INIT_FILE] = viewInitScript();
    data[VIEW_SIDECAR_FILE] = viewSidecarScript();
  }
  // commands.script of the containers and the wrappers of those beside Flux: user text, no secret.
  for (const [file, text] of containerScripts(miniCluster)) data[file] = text;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: names.configMap,
      namespace: namespaceOf(miniCluster),
      labels: commonLabels(miniCluster.metadata.name, COMPONENT_CONFIG),
    },
    data,
  };
}
