/**
 * The conversion webhook's setup on the manager: a runnable started before the caches (the operator
 * lists MiniClusters as v1alpha1, which the API server converts through the webhook from the stored
 * v1alpha2), whose later passes write only while this replica leads.
 */
import type { Logger } from 'pino';
import { convertMiniCluster } from '../../api/index.ts';
import type { Transport } from '../../kube/transport.ts';
import type { Manager } from '../../runtime/manager.ts';
import { ConversionWebhook, type ConversionWebhookOptions } from './webhook.ts';

/** The webhook's settings as the operator's owner gives them (the rest comes from the operator). */
export type ConversionWebhookSettings = Omit<
  ConversionWebhookOptions,
  'transport' | 'log' | 'mayWrite' | 'convert'
> & { readonly convert?: ConversionWebhookOptions['convert'] };

export function setupConversionWebhook(
  manager: Manager,
  transport: Transport,
  log: Logger,
  settings: ConversionWebhookSettings,
): ConversionWebhook {
  const webhook = new ConversionWebhook({
    ...settings,
    convert: settings.convert ?? convertMiniCluster,
    transport,
    log,
    mayWrite: () => manager.isLeader,
  });
  manager.add(webhook, { leaderOnly: false });
  return webhook;
}
