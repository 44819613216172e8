/**
 * The storage-version migration's setup on the manager: a leader-only runnable, started each time this
 * replica takes the lead, after the conversion webhook (a startup runnable) serves.
 */
import type { Logger } from 'pino';
import type { Transport } from '../../kube/transport.ts';
import type { Manager } from '../../runtime/manager.ts';
import { StorageVersionMigration, type StorageMigrationOptions } from './migration.ts';

/** Its pacing and retry as the operator's owner gives them (tests shorten the retry). */
export type StorageMigrationSettings = Pick<StorageMigrationOptions, 'rewritesPerSecond' | 'retryMs'>;

export function setupStorageVersionMigration(
  manager: Manager,
  transport: Transport,
  log: Logger,
  settings: StorageMigrationSettings = {},
): StorageVersionMigration {
  const migration = new StorageVersionMigration({
    ...settings,
    transport,
    log,
    namespaces: manager.namespaces,
  });
  manager.add(migration, { leaderOnly: true });
  return migration;
}
