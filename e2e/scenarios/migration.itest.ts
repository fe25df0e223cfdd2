/**
 * Live migration on the two-node local cluster, through the operator's install: `virtctl-ts migrate` makes a
 * VirtualMachineInstanceMigration, the controller makes the target Pod on the other node, the target handler
 * prepares its launcher and its proxy, the source handler migrates through the proxies (mutual TLS between the
 * two handlers), and the VMI ends on the other node with the same guest: a counter the guest started before
 * keeps counting after, and the guest did not boot again.
 */
import { describe, expect, it } from '@jest/globals';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import {
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINES,
  type VirtualMachineInstanceMigration,
} from '../../lib/kubevirt/index.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { exampleVm } from '../local/virt.ts';
import { scenario } from './stack.ts';
import { virtctl } from './virtctl.ts';

const s = scenario('e2e-migrate', { nodes: 2 });
const VM = 'mover';
const MIGRATE_MS = 300_000;

/** The console's output once `text` showed after `from`; the session is closed after. */
async function consoleUntil(text: string, typed?: string): Promise<string> {
  const con = virtctl(s.c.kubeconfig, s.ns).console(VM);
  try {
    await con.connected(60_000);
    if (typed !== undefined) {
      await con.until(MARKER, 240_000, 0);
      con.type(typed);
    }
    return await con.until(text, 120_000, 0);
  } finally {
    con.stop();
    await con.exited;
  }
}

async function migrations(): Promise<VirtualMachineInstanceMigration[]> {
  return (
    await s.clients.kv.list<VirtualMachineInstanceMigration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, {
      namespace: s.ns,
    })
  ).items;
}

describe('live migration between the two nodes', () => {
  it('moves a running guest to the other node: same boot, the counter goes on, the source Pod goes', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, await exampleVm(s.ns, VM), { namespace: s.ns });
    const before = await s.running(VM);
    const sourcePod = await s.launcherPod(before.metadata.uid ?? '');
    await consoleUntil('TICK 2', '\ni=0; while :; do echo TICK $i; i=$((i+1)); sleep 1; done &\n');

    const cli = await virtctl(s.c.kubeconfig, s.ns).run('migrate', VM);
    expect(cli).toEqual(expect.objectContaining({ code: 0 }));
    const done = await waitFor(
      async () => {
        const m = (await migrations())[0];
        return (m?.status?.phase === 'Succeeded' || m?.status?.phase === 'Failed') && m;
      },
      'the migration to end',
      { timeoutMs: MIGRATE_MS, intervalMs: 1000 },
    );
    expect({ phase: done.status?.phase, reason: done.status?.migrationState?.failureReason }).toEqual({
      phase: 'Succeeded',
      reason: undefined,
    });
    expect(done.spec.vmiName).toBe(VM);

    const after = await s.running(VM);
    expect(after.status?.nodeName).not.toBe(before.status?.nodeName);
    expect(after.status?.migrationState).toEqual(
      expect.objectContaining({ completed: true, targetNode: after.status?.nodeName }),
    );
    expect(after.status?.migrationState?.failed).not.toBe(true);
    await waitFor(
      async () => {
        const pod = await s.clients.kv.get<Pod>(PODS, sourcePod?.metadata.name ?? '', { namespace: s.ns });
        return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' || undefined;
      },
      'the source launcher Pod ended',
      { timeoutMs: 120_000, intervalMs: 1000 },
    ).catch(async (err: unknown) => {
      // Deleted is gone as well.
      if (
        (await s.clients.kv
          .get<Pod>(PODS, sourcePod?.metadata.name ?? '', { namespace: s.ns })
          .catch(() => undefined)) !== undefined
      )
        throw err;
    });
    const shown = await consoleUntil('TICK');
    expect(shown).not.toContain(MARKER);
    const ticks = [...shown.matchAll(/TICK (\d+)/g)].map((t) => Number(t[1]));
    expect(Math.max(...ticks)).toBeGreaterThan(2);
  }, 900_000);
});
