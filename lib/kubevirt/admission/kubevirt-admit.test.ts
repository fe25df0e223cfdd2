// The KubeVirt CR webhooks end to end without IO: AdmissionReview bodies in, AdmissionReview out, with a fake
// lookup that records what the admitters read.
import { describe, expect, it } from '@jest/globals';
import type { KubeVirt } from '../index.ts';
import type { PlacementProbe } from '../validation/index.ts';
import { kubevirtCr, withConfig, withSpec } from '../validation/testing/kubevirts.ts';
import { WEBHOOKS, webhooksServedBy } from '../webhooks.ts';
import { handleAdmission, type Admitter } from './admit.ts';
import { kubevirtAdmitters, type KubeVirtLookup } from './kubevirt-admitters.ts';
import type { AdmissionReviewResponse } from './review.ts';

type Table = Record<string, Admitter>;

interface World {
  kubevirts?: KubeVirt[];
  vmis?: boolean;
  vms?: boolean;
  dryRun?: (probe: PlacementProbe) => string | undefined;
  fail?: string;
}

function setup(world: World = {}): { table: Table; reads: string[] } {
  const reads: string[] = [];
  const read = <T>(what: string, value: T): Promise<T> => {
    reads.push(what);
    return world.fail === undefined ? Promise.resolve(value) : Promise.reject(new Error(world.fail));
  };
  const lookup: KubeVirtLookup = {
    kubevirts: (namespace) => read(`kubevirts ${namespace ?? '*'}`, world.kubevirts ?? []),
    anyVmi: () => read('vmis', world.vmis ?? false),
    anyVm: () => read('vms', world.vms ?? false),
    dryRunCreate: (namespace, probe) =>
      read(`dry-run ${probe.kind} ${namespace}`, world.dryRun?.(probe) ?? undefined),
  };
  return { table: kubevirtAdmitters(lookup), reads };
}

const review = (request: Record<string, unknown>): string =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u1',
      userInfo: { username: 'admin' },
      resource: { group: 'kubevirt.io', version: 'v1', resource: 'kubevirts' },
      ...request,
    },
  });

async function post(
  table: Table,
  path: string,
  request: Record<string, unknown>,
): Promise<AdmissionReviewResponse['response']> {
  const a = await handleAdmission(table, path, review(request));
  if (a.code !== 200) throw new Error(`answered ${a.code}`);
  return a.body.response;
}

const blocking = kubevirtCr(withSpec('uninstallStrategy', 'BlockUninstallIfWorkloadsExist'));
const uninstall = (what: string): string =>
  `Rejecting the uninstall request, since there are still ${what} present. Either delete all KubeVirt related workloads or change the uninstall strategy before uninstalling KubeVirt.`;

describe('kubevirtAdmitters', () => {
  it('admit the KubeVirt CR at the paths of the webhook table that are the operator’s', () => {
    const { table } = setup();
    const ours = webhooksServedBy('operator');
    expect(Object.keys(table).sort()).toEqual(ours.map((w) => w.path).sort());
    for (const w of ours) expect(table[w.path]?.kind).toBe('KubeVirt');
  });

  it('refuse a review still carrying the stored kind with 400 (it must be restored first)', async () => {
    const { table } = setup();
    const stored = { ...kubevirtCr(), kind: 'InternalVirtualizationKubeVirt' };
    const r = await post(table, WEBHOOKS.kubevirtValidateCreate.path, {
      operation: 'CREATE',
      object: stored,
    });
    expect(r).toMatchObject({
      allowed: false,
      status: { code: 400, message: 'request.object is a "InternalVirtualizationKubeVirt", not a KubeVirt' },
    });
  });
});

describe(WEBHOOKS.kubevirtValidateCreate.path, () => {
  it('admits the first KubeVirt CR and refuses another with KubeVirt’s 400', async () => {
    const first = setup();
    const create = { operation: 'CREATE', object: kubevirtCr() };
    expect(await post(first.table, WEBHOOKS.kubevirtValidateCreate.path, create)).toEqual({
      uid: 'u1',
      allowed: true,
    });
    expect(first.reads).toEqual(['kubevirts *']);
    const second = setup({ kubevirts: [kubevirtCr()] });
    expect(await post(second.table, WEBHOOKS.kubevirtValidateCreate.path, create)).toEqual({
      uid: 'u1',
      allowed: false,
      status: { code: 400, reason: 'BadRequest', message: 'Kubevirt is already created' },
    });
  });

  it('answers a failed list with its message, as KubeVirt does', async () => {
    const { table } = setup({ fail: 'connection refused' });
    const r = await post(table, WEBHOOKS.kubevirtValidateCreate.path, {
      operation: 'CREATE',
      object: kubevirtCr(),
    });
    expect(r).toMatchObject({ allowed: false, status: { code: 400, message: 'connection refused' } });
  });
});

describe(WEBHOOKS.kubevirtValidateUpdate.path, () => {
  const update = (object: KubeVirt, oldObject: KubeVirt = kubevirtCr()): Record<string, unknown> => ({
    operation: 'UPDATE',
    object,
    oldObject,
  });

  it('refuses with every cause, joined into the message, fields as KubeVirt names them', async () => {
    const { table } = setup();
    const bad = kubevirtCr(
      withConfig('tlsConfiguration', { minTLSVersion: 'VersionTLS12', ciphers: ['RC4'] }),
      withSpec('infra', { replicas: 0 }),
    );
    const r = await post(table, WEBHOOKS.kubevirtValidateUpdate.path, update(bad));
    expect(r).toEqual({
      uid: 'u1',
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: "RC4 is not a valid cipher, infra replica count can't be 0",
        details: {
          causes: [
            {
              reason: 'FieldValueNotSupported',
              message: 'RC4 is not a valid cipher',
              field: 'spec.configuration.tlsConfiguration.ciphers#0',
            },
            { reason: 'FieldValueInvalid', message: "infra replica count can't be 0" },
          ],
        },
      },
    });
  });

  it('dry-runs a changed workloads placement as a DaemonSet in the CR’s namespace; a refusal is a cause', async () => {
    const placement = { tolerations: [{ operator: 'Bogus' }] };
    const { table, reads } = setup({
      dryRun: (probe) =>
        probe.kind === 'DaemonSet'
          ? 'DaemonSet.apps "placement-validation-webhook" is invalid: spec.template.spec.tolerations[0].operator: Unsupported value: "Bogus"'
          : undefined,
    });
    const r = await post(
      table,
      WEBHOOKS.kubevirtValidateUpdate.path,
      update(kubevirtCr(withSpec('workloads', { nodePlacement: placement }))),
    );
    expect(reads).toEqual(['dry-run DaemonSet d8-virtualization']);
    expect(r.allowed).toBe(false);
    expect(r.status?.details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message:
          'DaemonSet.apps "placement-validation-webhook" is invalid: spec.template.spec.tolerations[0].operator: Unsupported value: "Bogus"',
      },
    ]);
  });

  it('admits with the warnings of newly listed inactive gates and the deprecated mediated devices field', async () => {
    const { table, reads } = setup();
    const next = kubevirtCr(
      (kv) => kv.spec.configuration?.developerConfiguration?.featureGates?.push('Macvtap'),
      withConfig('mediatedDevicesConfiguration', { mediatedDevicesTypes: ['nvidia-222'] }),
    );
    expect(await post(table, WEBHOOKS.kubevirtValidateUpdate.path, update(next))).toEqual({
      uid: 'u1',
      allowed: true,
      warnings: [
        'Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.',
        'spec.configuration.mediatedDevicesConfiguration.mediatedDevicesTypes is deprecated, use mediatedDeviceTypes',
      ],
    });
    expect(reads).toEqual([]);
  });

  it('answers 400 with Go’s text for what json.Unmarshal refuses, and for another resource', async () => {
    const { table } = setup();
    const odd = kubevirtCr(
      withSpec('certificateRotateStrategy', { selfSigned: { ca: { duration: '7days' } } }),
    );
    expect(await post(table, WEBHOOKS.kubevirtValidateUpdate.path, update(odd))).toMatchObject({
      allowed: false,
      status: { code: 400, message: 'time: unknown unit "days" in duration "7days"' },
    });
    const elsewhere = await post(table, WEBHOOKS.kubevirtValidateUpdate.path, {
      ...update(kubevirtCr()),
      resource: { group: 'kubevirt.io', version: 'v1', resource: 'virtualmachines' },
    });
    expect(elsewhere).toMatchObject({
      allowed: false,
      status: { code: 400, message: "expect resource to be '{kubevirt.io v1 kubevirts}'" },
    });
  });
});

describe(WEBHOOKS.kubevirtValidateDelete.path, () => {
  const remove = (oldObject: KubeVirt | null, name = 'kubevirt'): Record<string, unknown> => ({
    operation: 'DELETE',
    name,
    namespace: 'd8-virtualization',
    object: null,
    oldObject,
  });

  interface Expected {
    readonly refusal?: string;
    /** What the admitter read, in order. */
    readonly reads: string[];
  }
  it.each<[string, World, KubeVirt, Expected]>([
    ['RemoveWorkloads: no workload is read', { vmis: true }, kubevirtCr(), { reads: [] }],
    [
      'blocked, with VMIs',
      { vmis: true, vms: true },
      blocking,
      { refusal: uninstall('Virtual Machine Instances'), reads: ['vmis'] },
    ],
    [
      'blocked, with VMs only',
      { vms: true },
      blocking,
      { refusal: uninstall('Virtual Machines'), reads: ['vmis', 'vms'] },
    ],
    ['blocked, nothing left', {}, blocking, { reads: ['vmis', 'vms'] }],
    [
      'blocked, but not Deployed',
      { vmis: true },
      { ...blocking, status: { phase: 'Deploying' } },
      { reads: [] },
    ],
  ])('%s', async (_name, world, kv, { refusal, reads }) => {
    const s = setup(world);
    const r = await post(s.table, WEBHOOKS.kubevirtValidateDelete.path, remove(kv));
    expect(r).toEqual(
      refusal === undefined
        ? { uid: 'u1', allowed: true }
        : { uid: 'u1', allowed: false, status: { code: 400, reason: 'BadRequest', message: refusal } },
    );
    expect(s.reads).toEqual(reads);
  });

  it('reads the KubeVirt CR from the cluster when the request has no old object', async () => {
    const found = setup({ kubevirts: [blocking], vmis: true });
    const r = await post(found.table, WEBHOOKS.kubevirtValidateDelete.path, remove(null));
    expect(r.status?.message).toBe(uninstall('Virtual Machine Instances'));
    expect(found.reads).toEqual(['kubevirts d8-virtualization', 'vmis']);
    const missing = setup({ kubevirts: [blocking] });
    const gone = await post(missing.table, WEBHOOKS.kubevirtValidateDelete.path, remove(null, 'other'));
    expect(gone).toMatchObject({
      allowed: false,
      status: { code: 400, message: 'kubevirts.kubevirt.io "other" not found' },
    });
  });
});
