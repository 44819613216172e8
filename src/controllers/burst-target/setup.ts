/**
 * The BurstTarget controller's setup: it watches BurstTargets (its own cache, started only while this
 * instance leads, since only the leader checks targets and writes their status) and runs as one of
 * the manager's leader-only runnables. What a target's connecting or dropping means for MiniClusters
 * is the caller's `onConnectionChange`.
 */
import type { ApiClients } from '../../kube/api-clients.ts';
import type { Manager } from '../../runtime/manager.ts';
import { BurstTargetController, type BurstTargetControllerOptions } from './burst-target-controller.ts';

export interface BurstTargetSetupOptions {
  readonly clients: ApiClients;
  readonly onTargetRequest?: BurstTargetControllerOptions['onTargetRequest'];
  readonly providers?: BurstTargetControllerOptions['providers'];
  readonly deleteProvisioned?: BurstTargetControllerOptions['deleteProvisioned'];
  readonly installOperator?: BurstTargetControllerOptions['installOperator'];
  readonly schedule?: BurstTargetControllerOptions['schedule'];
  readonly onConnectionChange?: BurstTargetControllerOptions['onConnectionChange'];
}

export function setupBurstTargetController(
  manager: Manager,
  options: BurstTargetSetupOptions,
): BurstTargetController {
  const controller = new BurstTargetController({
    clients: options.clients,
    log: manager.log,
    recovery: manager.recovery,
    namespaces: manager.namespaces,
    ...(options.onTargetRequest ? { onTargetRequest: options.onTargetRequest } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.deleteProvisioned ? { deleteProvisioned: options.deleteProvisioned } : {}),
    ...(options.installOperator ? { installOperator: options.installOperator } : {}),
    ...(options.schedule ? { schedule: options.schedule } : {}),
    ...(options.onConnectionChange ? { onConnectionChange: options.onConnectionChange } : {}),
  });
  manager.add(controller);
  return controller;
}
