/** migrate and migrate-cancel: the calls, virtctl's error prefixes and its "VM x was scheduled to …" lines. */
import type { Command } from 'commander';
import { DRY_RUN_LINE } from '../api-call.ts';
import { CommandFailed } from '../errors/failures.ts';
import { scheduledLine } from '../lifecycle/lifecycle.ts';
import type { Session } from '../session.ts';
import { migrateCall, migrationsOf, migrationToCancel, noMigrationMessage } from './migrate.ts';

interface MigrateCliFlags {
  readonly dryRun?: boolean;
  readonly addedNodeSelector?: Record<string, string>;
}

export async function runMigrate(s: Session, cmd: Command, name: string): Promise<void> {
  const f = cmd.opts<MigrateCliFlags>();
  const client = s.client(cmd);
  if (f.dryRun === true) s.out(DRY_RUN_LINE);
  try {
    await client.call(migrateCall({ namespace: client.namespace, name }, f));
  } catch (err) {
    throw new CommandFailed('Error migrating VirtualMachine', err);
  }
  s.out(scheduledLine('VM', name, 'migrate'));
}

export async function runMigrateCancel(s: Session, cmd: Command, name: string): Promise<void> {
  const reader = s.reader(cmd);
  const migrations = await reader.migrations(migrationsOf(name)).catch((err: unknown) => {
    throw new CommandFailed('Error fetching virtual machine instance migration list', err);
  });
  const target = migrationToCancel(migrations)?.metadata.name;
  if (target === undefined) throw new Error(noMigrationMessage(name));
  await reader.deleteMigration(target).catch((err: unknown) => {
    throw new CommandFailed(`Error canceling migration ${target} of a VirtualMachine ${name}`, err);
  });
  s.out(scheduledLine('VM', name, 'migrate-cancel'));
}
