/**
 * One VM through its life, driven by `virtctl-ts` as a person drives it (a kubeconfig only: every call goes to
 * kube-apiserver and through the aggregation layer to the api, which forwards to the handler): it runs and its
 * console shows the guest's marker; freeze and unfreeze on the agent guest; a claim added appears in the guest's
 * /sys/block and goes again when removed; pause and unpause; stop and start; restart gives a new VMI; a user
 * without RBAC for the console is refused with the permission named.
 */
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { VIRTUAL_MACHINES, type VirtualMachineInstance } from '../../lib/kubevirt/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { claimWithDisk } from '../local/testing/claims.ts';
import { agentVm } from '../local/virt.ts';
import { EXIT } from '../../lib/virtctl/errors/exit-codes.ts';
import { scenario } from './stack.ts';
import { ESCAPE, userKubeconfig, virtctl, type Run } from './virtctl.ts';

const s = scenario('e2e-life');
const VM = 'life';
const CLAIM = 'life-claim';
/** Typed into the guest's shell: the guest prints the sum, so the echoed command line never matches it. */
const END = 'E42D';

const cli = (): ReturnType<typeof virtctl> => virtctl(s.c.kubeconfig, s.ns);
const ok = (r: Run): Run => {
  if (r.code !== 0) throw new Error(`virtctl-ts exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r;
};
const until = <T>(what: string, f: () => Promise<T | false | undefined>, timeoutMs = 180_000): Promise<T> =>
  waitFor(f, what, { timeoutMs, intervalMs: 500 });
const vmiWhere = (
  what: string,
  test: (v: VirtualMachineInstance) => boolean,
): Promise<VirtualMachineInstance> =>
  until(what, async () => {
    const v = await s.vmi(VM);
    return v !== undefined && test(v) && v;
  });

/** What the guest's shell prints for `command`, read through `virtctl-ts console`. */
async function inGuest(command: string): Promise<string> {
  const con = cli().console(VM);
  try {
    await con.connected(60_000);
    await new Promise((r) => setTimeout(r, 500)); // the replayed history
    const from = con.output().length;
    con.type(`${command}; echo E$((6*7))D\n`);
    return await con.until(END, 30_000, from);
  } finally {
    con.type(ESCAPE);
    await con.exited;
  }
}

describe('a VM driven by virtctl-ts', () => {
  it('runs, and virtctl-ts console shows the guest’s marker; Ctrl+] leaves with 0', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, await agentVm(s.ns, VM));
    await s.running(VM);
    const con = cli().console(VM);
    await con.until(MARKER, 120_000);
    expect(con.stderr()).toMatch(new RegExp(`Successfully connected to ${VM} console`));
    con.type(ESCAPE);
    expect(await con.exited).toBe(0);
  }, 600_000);

  it('freezes and thaws the guest’s filesystems', async () => {
    await vmiWhere('the agent connected', (v) =>
      (v.status?.conditions ?? []).some((c) => c.type === 'AgentConnected' && c.status === 'True'),
    );
    ok(await cli().run('freeze', VM, '--unfreeze-timeout', '2m'));
    await vmiWhere('fsFreezeStatus frozen', (v) => v.status?.fsFreezeStatus === 'frozen');
    ok(await cli().run('unfreeze', VM));
    await vmiWhere('fsFreezeStatus gone', (v) => v.status?.fsFreezeStatus === undefined);
  }, 300_000);

  it('adds a claim the guest sees in /sys/block, and removes it', async () => {
    await claimWithDisk(s.clients.direct, s.ns, CLAIM);
    ok(await cli().run('addvolume', VM, '--volume-name', CLAIM));
    const ready = await vmiWhere('the volume Ready', (v) =>
      (v.status?.volumeStatus ?? []).some((x) => x.name === CLAIM && x.phase === 'Ready'),
    );
    const target = ready.status?.volumeStatus?.find((x) => x.name === CLAIM)?.target ?? '';
    expect(target).toMatch(/^sd[a-z]$/);
    expect(await inGuest('ls /sys/block')).toContain(target);
    ok(await cli().run('removevolume', VM, '--volume-name', CLAIM));
    await vmiWhere('the volume gone', (v) => !(v.status?.volumeStatus ?? []).some((x) => x.name === CLAIM));
    expect(await inGuest('ls /sys/block')).not.toContain(target);
  }, 600_000);

  it('pauses and unpauses', async () => {
    ok(await cli().run('pause', 'vm', VM));
    const paused = (v: VirtualMachineInstance): boolean =>
      (v.status?.conditions ?? []).some((c) => c.type === 'Paused' && c.status === 'True');
    await vmiWhere('Paused', paused);
    ok(await cli().run('unpause', 'vm', VM));
    await vmiWhere('not Paused', (v) => !paused(v));
  }, 300_000);

  it('stops and starts; a restart gives a new VMI', async () => {
    ok(await cli().run('stop', VM));
    await until('the VMI gone', async () => (await s.vmi(VM)) === undefined);
    ok(await cli().run('start', VM));
    const first = await s.running(VM);
    ok(await cli().run('restart', VM));
    const second = await vmiWhere(
      'a new VMI Running',
      (v) => v.metadata.uid !== first.metadata.uid && v.status?.phase === 'Running',
    );
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
  }, 600_000);

  it('refuses the console to a user without RBAC for it, naming the permission', async () => {
    const kubeconfig = await userKubeconfig(s.c.kubeconfig, 'mallory', join(s.c.dir, 'e2e-users'));
    const r = await virtctl(kubeconfig, s.ns).run('console', VM);
    expect(r.code).not.toBe(0);
    expect(r.code).toBe(EXIT.forbidden);
    expect(r.stderr).toContain('virtualmachineinstances/console');
  }, 120_000);
});
