/**
 * Containers beside the Flux container that v1alpha2 wraps (unless noWrapEntrypoint): the input of
 * their wrapper script (src/flux/sidecar.ts), and the files of the operator's ConfigMap that the
 * containers of a broker pod run (wrappers and commands.script).
 */
import { SPACK_SOFTWARE_DIR, sidecarScript, type SidecarInput } from '../flux/index.ts';
import { isWrapped, layoutOf } from './layout.ts';
import type { DefaultedContainer, DefaultedMiniCluster } from './model.ts';
import { OPERATOR_DIR, scriptFile, wrapperFile } from './paths.ts';

export function sidecarInput(miniCluster: DefaultedMiniCluster, container: DefaultedContainer): SidecarInput {
  const { spec } = miniCluster;
  const layout = layoutOf(miniCluster);
  const { commands } = container;
  const hooks: NonNullable<SidecarInput['hooks']> = {};
  if (commands.init !== undefined) hooks.init = commands.init;
  if (commands.servicePre !== undefined) hooks.servicePre = commands.servicePre;
  if (commands.post !== undefined) hooks.post = commands.post;
  const input: SidecarInput = {
    containerName: container.name,
    flux: layout.view
      ? {
          from: 'view',
          path: layout.view.path,
          commandDir: layout.view.commandDir,
          spackSoftware: { from: layout.view.spackSoftware, to: SPACK_SOFTWARE_DIR },
        }
      : { from: 'image', installRoot: spec.flux.installRoot },
    hooks,
    logging: { quiet: spec.logging.quiet, strict: spec.logging.strict, debug: spec.logging.debug },
  };
  if (layout.view && spec.flux.container.pythonPath !== undefined)
    input.pythonPath = spec.flux.container.pythonPath;
  if (spec.flux.noWaitSocket !== true) input.fluxSocket = `${layout.runDir}/local`;
  if (commands.script !== undefined) input.scriptPath = `${OPERATOR_DIR}/${scriptFile(container.name)}`;
  if (container.command !== undefined) input.command = container.command;
  return input;
}

/** The scripts a broker pod's containers run from the ConfigMap: file name to text, in name order. */
export function containerScripts(miniCluster: DefaultedMiniCluster): [string, string][] {
  const files: [string, string][] = [];
  for (const container of miniCluster.spec.containers) {
    if (container.commands.script !== undefined)
      files.push([scriptFile(container.name), container.commands.script]);
    if (isWrapped(container))
      files.push([wrapperFile(container.name), sidecarScript(sidecarInput(miniCluster, container))]);
  }
  return files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
