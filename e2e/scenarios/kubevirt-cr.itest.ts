/**
 * The KubeVirt resource of the operator's install, as its users meet it: its webhooks (served by the operator,
 * restored in process from the stored names) refuse a second KubeVirt resource and an update KubeVirt refuses
 * (infra replicas 0) with KubeVirt's messages; under BlockUninstallIfWorkloadsExist its deletion is refused while a
 * VM exists, with KubeVirt's message; without one it is deleted, never hangs in Deleting (gone within two
 * minutes, finalizer and all), and everything the install made is removed; the install is then made again for the
 * scenarios after this one.
 */
import { describe, expect, it } from '@jest/globals';
import { isNotFound } from '../../lib/kernel/errors/errors.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { KUBEVIRTS, VIRTUAL_MACHINES, type KubeVirt } from '../../lib/kubevirt/index.ts';
import { uninstallRefusal } from '../../lib/kubevirt/validation/index.ts';
import { INSTALLED_KINDS } from '../../lib/operator/apply/kinds.ts';
import { installSelector } from '../../lib/operator/generate/meta.ts';
import { installVirt, localKubeVirt, VIRT_NAMESPACE } from '../local/virt-install.ts';
import { exampleVm } from '../local/virt.ts';
import { scenario } from './stack.ts';

const s = scenario('e2e-kubevirt-cr');
const NAME = localKubeVirt().metadata.name ?? '';

/** What a refused write says: its HTTP code and message. */
const refusal = (p: Promise<unknown>): Promise<{ code?: number; message?: string } | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (e as { status?: { code?: number; message?: string } }).status ?? { message: String(e) },
  );

const patchInstalled = (spec: Record<string, unknown>): Promise<KubeVirt> =>
  s.clients.kv.patch<KubeVirt>(KUBEVIRTS, NAME, { spec }, { namespace: VIRT_NAMESPACE, type: 'merge' });

/** The install's objects still in the cluster, as `resource/name`. */
async function installedLeft(): Promise<string[]> {
  const left: string[] = [];
  for (const gvr of INSTALLED_KINDS) {
    const list = await s.clients.direct.list(gvr, {
      labelSelector: installSelector(),
      ...(gvr.namespaced && { namespace: VIRT_NAMESPACE }),
    });
    left.push(...list.items.map((o) => `${gvr.resource}/${o.metadata.name ?? ''}`));
  }
  return left;
}

describe('the KubeVirt resource', () => {
  it('refuses a second KubeVirt resource and an update KubeVirt refuses', async () => {
    const second = await refusal(
      s.clients.kv.create(KUBEVIRTS, {
        apiVersion: 'kubevirt.io/v1',
        kind: 'KubeVirt',
        metadata: { name: 'second', namespace: s.ns },
        spec: {},
      }),
    );
    expect(second?.message).toContain('Kubevirt is already created');
    const replicas = await refusal(patchInstalled({ infra: { replicas: 0 } }));
    expect(replicas?.code).toBe(422);
    expect(replicas?.message).toContain("infra replica count can't be 0");
  }, 120_000);

  it('refuses its deletion while a VM exists under BlockUninstallIfWorkloadsExist', async () => {
    await patchInstalled({ uninstallStrategy: 'BlockUninstallIfWorkloadsExist' });
    const vm = await exampleVm(s.ns, 'keeps-kubevirt');
    vm.spec.runStrategy = 'Halted';
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);
    try {
      const refused = await refusal(s.clients.kv.delete(KUBEVIRTS, NAME, { namespace: VIRT_NAMESPACE }));
      // KubeVirt names the VMIs first when there are any (./dev run's example VM may be running).
      const refusals = [uninstallRefusal('Virtual Machine Instances'), uninstallRefusal('Virtual Machines')];
      expect(refusals.some((r) => refused?.message?.includes(r) === true)).toBe(true);
    } finally {
      await s.clients.kv.delete(VIRTUAL_MACHINES, 'keeps-kubevirt', { namespace: s.ns });
      await patchInstalled({ uninstallStrategy: null });
    }
  }, 120_000);

  it('is deleted within two minutes without a VM, and everything the install made goes with it', async () => {
    await waitFor(
      async () => (await s.clients.kv.list(VIRTUAL_MACHINES, { namespace: s.ns })).items.length === 0,
      'the VM gone',
      { timeoutMs: 60_000 },
    );
    const started = Date.now();
    await s.clients.kv.delete(KUBEVIRTS, NAME, { namespace: VIRT_NAMESPACE });
    await waitFor(
      () =>
        s.clients.kv.get(KUBEVIRTS, NAME, { namespace: VIRT_NAMESPACE }).then(
          () => false,
          (err: unknown) => isNotFound(err),
        ),
      'the KubeVirt resource gone',
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    process.stderr.write(`KubeVirt resource deleted in ${Date.now() - started} ms\n`);
    expect(await installedLeft()).toEqual([]);
    await installVirt(s.clients, { dir: s.c.dir });
  }, 600_000);
});
