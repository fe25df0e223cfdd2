/**
 * The migration controller as the role runs it (kubevirt watch/application.go initMigrationController): on
 * the shared migration, VMI, Pod, KubeVirt and claim caches.
 */
import { defineController } from '../definition.ts';
import { MigrationController } from './controller.ts';
import { MIGRATION_WATCHES, watchForMigrations } from './handlers.ts';

const MIGRATION_QUEUE = 'virt-controller-migration';

export const migrationController = defineController({
  queue: MIGRATION_QUEUE,
  watches: MIGRATION_WATCHES,
  eventsWait: true,
  start: (inf, ctx) => {
    const c = new MigrationController({
      client: ctx.client,
      migrations: inf.migrations.store,
      vmis: inf.vmis.store,
      pods: inf.pods.store,
      kubevirts: inf.kubevirts.store,
      pvcs: inf.pvcs.store,
      clock: ctx.clock,
      recorder: ctx.recorder('migration-controller'),
      launcher: ctx.settings.launcher,
    });
    watchForMigrations(inf, c.podExpectations, ctx.enqueue);
    return c.reconcile;
  },
});
