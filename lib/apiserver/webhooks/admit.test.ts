// The admitter table end to end without IO: AdmissionReview bodies in, AdmissionReview (or Status) out.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { FINALIZERS } from '../../kubevirt/labels.ts';
import { vm, vmi } from '../../kubevirt/testing/objects.ts';
import { validSpec } from '../../kubevirt/validation/testing/fixtures.ts';
import { WEBHOOKS, webhooksServedBy } from '../../kubevirt/webhooks.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { handleAdmission } from '../../kubevirt/admission/admit.ts';
import { admitters } from './admitters.ts';
import { fakeLookup } from './testing/admission.ts';

const table = admitters({
  clock: new FakeClock(),
  uuid: () => '11111111-2222-4333-8444-555555555555',
  isOwnServiceAccount: (u) =>
    u === 'system:serviceaccount:d8-virtualization:kubevirt-internal-virtualization-controller',
  isHandlerServiceAccount: () => false,
  lookup: fakeLookup(),
  log: nopLogger,
});
const review = (operation: string, object: unknown, oldObject?: unknown): string =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', operation, userInfo: { username: 'alice' }, object, oldObject: oldObject ?? null },
  });

describe('handleAdmission', () => {
  it('denies an invalid VM with KubeVirt’s message and the field', async () => {
    const bad = vm();
    bad.spec.running = true;
    const a = await handleAdmission(table, WEBHOOKS.vmValidate.path, review('CREATE', bad));
    expect(a.code).toBe(200);
    if (a.code !== 200) return;
    expect(a.body.response).toMatchObject({
      uid: 'u1',
      allowed: false,
      status: { code: 422, reason: 'Invalid' },
    });
    expect(a.body.response.status?.message).toMatch(/mutually exclusive/);
    expect(a.body.response.status?.details?.causes[0]?.field).toBe('spec.running');
  });

  it('admits a valid VM and mutates it with the controller finalizer', async () => {
    const ok = vm();
    ok.metadata.finalizers = [];
    const v = await handleAdmission(table, WEBHOOKS.vmValidate.path, review('CREATE', ok));
    expect(v.code === 200 && v.body.response.allowed).toBe(true);
    const m = await handleAdmission(table, WEBHOOKS.vmMutate.path, review('CREATE', ok));
    if (m.code !== 200) throw new Error(`mutate answered ${m.code}`);
    const patch = JSON.parse(Buffer.from(m.body.response.patch ?? '', 'base64').toString()) as {
      path: string;
      value: { finalizers?: string[] };
    }[];
    expect(patch.find((op) => op.path === '/metadata')?.value.finalizers).toEqual([
      FINALIZERS.VIRTUAL_MACHINE_CONTROLLER,
    ]);
  });

  it('validates a VMI create and refuses the wrong kind at a VMI path', async () => {
    const good = { ...vmi(), spec: validSpec() };
    const ok = await handleAdmission(table, WEBHOOKS.vmiValidateCreate.path, review('CREATE', good));
    expect(ok.code === 200 && ok.body.response).toEqual({ uid: 'u1', allowed: true });
    const wrong = await handleAdmission(table, WEBHOOKS.vmiValidateCreate.path, review('CREATE', vm()));
    expect(wrong.code === 200 && wrong.body.response).toMatchObject({
      allowed: false,
      status: { code: 400, message: 'request.object is a "VirtualMachine", not a VirtualMachineInstance' },
    });
  });

  it.each([
    ['vmValidate', WEBHOOKS.vmValidate.path, 'VirtualMachine'],
    ['vmMutate', WEBHOOKS.vmMutate.path, 'VirtualMachine'],
  ])('answers 400 at %s for a VM that does not decode, naming the field', async (_name, path, kind) => {
    const bad = { ...vm(), spec: { ...vm().spec, running: 'yes' } };
    const a = await handleAdmission(table, path, review('CREATE', bad));
    expect(a.code === 200 && a.body.response).toMatchObject({
      allowed: false,
      status: {
        code: 400,
        message: `cannot admit this ${kind}: spec.running: expected a boolean, got the string "yes"`,
      },
    });
  });

  it('answers 400 for a VMI update whose old object does not decode', async () => {
    const good = { ...vmi(), spec: validSpec() };
    const old = { ...good, spec: { ...good.spec, domain: 'small' } };
    const a = await handleAdmission(table, WEBHOOKS.vmiValidateUpdate.path, review('UPDATE', good, old));
    expect(a.code === 200 && a.body.response).toMatchObject({
      allowed: false,
      status: {
        code: 400,
        message: expect.stringMatching(
          /^cannot admit this VirtualMachineInstance: spec\.domain: expected an object/,
        ),
      },
    });
  });

  it('answers 404 for a path it does not serve, 400 for a body that is no review', async () => {
    expect((await handleAdmission(table, '/nope', '{}')).code).toBe(404);
    expect((await handleAdmission(table, WEBHOOKS.vmMutate.path, 'not json')).code).toBe(400);
  });

  it('never throws, whatever the body, on every path (fuzz)', async () => {
    const paths = webhooksServedBy('api').map((w) => w.path);
    const objects = fc.oneof(
      fc.anything(),
      fc.constant(vm()),
      fc.constant(vmi()),
      fc.record({ metadata: fc.object(), spec: fc.object() }),
      fc.record({
        kind: fc.constantFrom('VirtualMachine', 'VirtualMachineInstance'),
        metadata: fc.constant({}),
        spec: fc.anything(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom('CREATE', 'UPDATE', 'DELETE'),
        objects,
        objects,
        async (path, op, object, old) => {
          const a = await handleAdmission(table, path, review(op, object, old));
          if (a.code === 200) expect(a.body.response.uid).toBe('u1');
          else expect(a.body.kind).toBe('Status');
        },
      ),
      { numRuns: 1500 },
    );
  });
});
