/**
 * Carrying out the pure cores' plans (the order of index.ts): the VM and VMI read through the rename rules
 * (undefined when absent), the body read as JSON (null when empty), the patches applied in order (patchFailure
 * when one fails), a forced restart's launcher Pod deleted, and the calls forwarded to the VMI's handler at its
 * Node's address (handlerFailure when that fails). A Refusal is written as KubeVirt writes it: statusOf, or
 * text when it is plain text.
 */
import { STATUS_CODES } from 'node:http';
import {
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import { isHandlerSubresourceOf } from '../../kubevirt/subresources/handler-subresources.ts';
import { DECKHOUSE_FEATURE_GATES } from '../../kubevirt/validation/index.ts';
import { errorMessage, StatusError } from '../../kernel/errors/errors.ts';
import { NODES, PODS, type KubeClient, type KubeObject } from '../../kernel/kube/index.ts';
import type { SubresourceReply } from '../subresource-api.ts';
import { callHandler, type HandlerAddress, type HandlerTls } from '../stream/dial.ts';
import { handlerAddress, type NodeAddresses } from '../stream/locate.ts';
import {
  addResourceClaimRequest,
  addVolumeRequest,
  badRequest,
  handlerFailure,
  isRefusal,
  launcherPodSelectors,
  migrationCreateFailure,
  patchFailure,
  pickLauncherPod,
  planEvacuateCancel,
  planMigrate,
  planRestart,
  planStart,
  planStop,
  planVmiCommand,
  planVmiQuery,
  planVmiResourceClaim,
  planVmiVolume,
  planVmResourceClaim,
  planVmVolume,
  removeResourceClaimRequest,
  removeVolumeRequest,
  statusOf,
  unexpectedReturnCode,
  unmarshalFailed,
  type HandlerCall,
  type Refusal,
  type Route,
  type VmiCommand,
  type VmiQuery,
  type VmPlan,
} from './index.ts';

export type SubresourceTarget = Extract<Route, { kind: 'subresource' }>;

const GATES: ReadonlySet<string> = new Set(DECKHOUSE_FEATURE_GATES);
const VM_LIFECYCLE = { start: planStart, stop: planStop, restart: planRestart } as const;

export const reply = (code: number, body: unknown): SubresourceReply => ({ code, body });
/** 202 Accepted with an empty body, as virt-api answers a change it took. */
const ACCEPTED_REPLY: SubresourceReply = { code: 202, body: '', contentType: 'text/plain; charset=utf-8' };
/** 200 with an empty body (the fork's evacuatecancel). */
const OK_REPLY: SubresourceReply = { ...ACCEPTED_REPLY, code: 200 };

function refusalReply(r: Refusal): SubresourceReply {
  if (r.plainText === true)
    return { code: r.status, body: r.message, contentType: 'text/plain; charset=utf-8' };
  return reply(r.status, statusOf(r));
}

/** What this build does not serve yet, as a Status. */
export function notBuilt(what: string, why: string): SubresourceReply {
  return reply(501, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${what} is not built yet: ${why}`,
    reason: 'NotImplemented',
    code: 501,
  });
}

function unserved(sub: string): SubresourceReply {
  if (sub === 'console' || sub === 'vnc' || sub === 'portforward')
    return refusalReply(badRequest('a websocket upgrade is required'));
  return notBuilt(
    sub,
    'this build serves console, vnc, lifecycle, migrate, evacuatecancel, volume, resource claim and guest agent ' +
      'subresources',
  );
}

function parseBody(body: string): unknown {
  if (body.trim() === '') return null;
  try {
    return JSON.parse(body) as unknown;
  } catch (err) {
    return unmarshalFailed(errorMessage(err));
  }
}

async function orUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof StatusError && err.httpCode === 404) return undefined;
    throw err;
  }
}

export class RestShell {
  constructor(
    private readonly client: KubeClient,
    private readonly handlers: { readonly port: number; readonly tls: HandlerTls },
  ) {}

  vm(ns: string, name: string): Promise<VirtualMachine | undefined> {
    return orUndefined(this.client.get<VirtualMachine>(VIRTUAL_MACHINES, name, { namespace: ns }));
  }

  vmi(ns: string, name: string): Promise<VirtualMachineInstance | undefined> {
    return orUndefined(
      this.client.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: ns }),
    );
  }

  /** The handler serving the call's node: its Node's address at the REST server port. */
  async handlerOf(call: HandlerCall): Promise<HandlerAddress | Refusal> {
    const node = await orUndefined(this.client.get<KubeObject & NodeAddresses>(NODES, call.node));
    if (node === undefined) return handlerFailure(call, `node ${call.node} not found`);
    const a = handlerAddress(node, this.handlers.port);
    return 'message' in a ? handlerFailure(call, a.message) : a;
  }

  async serve(r: SubresourceTarget, raw: string): Promise<SubresourceReply> {
    const body = parseBody(raw);
    if (isRefusal(body)) return refusalReply(body);
    const sub = r.subresource;
    if (r.resource === 'virtualmachines') return this.vmSubresource(r, sub, body);
    if (isHandlerSubresourceOf(sub, 'command')) return this.command(r, sub, body, raw);
    if (isHandlerSubresourceOf(sub, 'query')) return this.query(r, sub);
    return this.shared(r, sub, body);
  }

  private vmSubresource(r: SubresourceTarget, sub: string, body: unknown): Promise<SubresourceReply> {
    if (Object.hasOwn(VM_LIFECYCLE, sub)) return this.lifecycle(r, sub as keyof typeof VM_LIFECYCLE, body);
    if (sub === 'migrate') return this.migrate(r, body);
    return this.shared(r, sub, body);
  }

  /** The subresources of VMs and VMIs alike. */
  private async shared(r: SubresourceTarget, sub: string, body: unknown): Promise<SubresourceReply> {
    if (sub === 'addvolume' || sub === 'removevolume') return this.volume(r, sub, body);
    if (sub === 'addresourceclaim' || sub === 'removeresourceclaim') return this.resourceClaim(r, sub, body);
    if (sub === 'evacuatecancel') return this.evacuateCancel(r, body);
    return Promise.resolve(unserved(sub));
  }

  private async lifecycle(
    r: SubresourceTarget,
    sub: keyof typeof VM_LIFECYCLE,
    body: unknown,
  ): Promise<SubresourceReply> {
    const [vm, vmi] = await Promise.all([this.vm(r.namespace, r.name), this.vmi(r.namespace, r.name)]);
    const plan = VM_LIFECYCLE[sub]({ name: r.name, vm, vmi, body });
    return isRefusal(plan) ? refusalReply(plan) : this.carryOut(r, plan, vmi);
  }

  /** A VirtualMachineInstanceMigration of the VM's VMI, written through the rename rules like every object. */
  private async migrate(r: SubresourceTarget, body: unknown): Promise<SubresourceReply> {
    const [vm, vmi] = await Promise.all([this.vm(r.namespace, r.name), this.vmi(r.namespace, r.name)]);
    const plan = planMigrate({ name: r.name, vm, vmi, body });
    if (isRefusal(plan)) return refusalReply(plan);
    try {
      await this.client.create(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, plan.migration, {
        namespace: r.namespace,
        ...(plan.dryRun !== undefined && { dryRun: true }),
      });
    } catch (err) {
      return refusalReply(migrationCreateFailure(errorMessage(err)));
    }
    return ACCEPTED_REPLY;
  }

  private async evacuateCancel(r: SubresourceTarget, body: unknown): Promise<SubresourceReply> {
    const { resource, namespace, name } = r;
    const [vm, vmi] = await Promise.all([
      resource === 'virtualmachines' ? this.vm(namespace, name) : undefined,
      this.vmi(namespace, name),
    ]);
    const plan = planEvacuateCancel({ resource, namespace, name, vm, vmi, body });
    return isRefusal(plan) ? refusalReply(plan) : this.carryOut(r, plan, undefined);
  }

  private async volume(
    r: SubresourceTarget,
    sub: 'addvolume' | 'removevolume',
    body: unknown,
  ): Promise<SubresourceReply> {
    const request = sub === 'addvolume' ? addVolumeRequest(body, GATES) : removeVolumeRequest(body, GATES);
    if (isRefusal(request)) return refusalReply(request);
    const plan =
      r.resource === 'virtualmachines'
        ? planVmVolume({ name: r.name, object: await this.vm(r.namespace, r.name), request, gates: GATES })
        : planVmiVolume({ name: r.name, object: await this.vmi(r.namespace, r.name), request, gates: GATES });
    return isRefusal(plan) ? refusalReply(plan) : this.carryOut(r, plan, undefined);
  }

  /** The Deckhouse fork's DRA host device hotplug, the same way as a volume (resource-claims.ts). */
  private async resourceClaim(
    r: SubresourceTarget,
    sub: 'addresourceclaim' | 'removeresourceclaim',
    body: unknown,
  ): Promise<SubresourceReply> {
    const request =
      sub === 'addresourceclaim'
        ? addResourceClaimRequest(body, GATES)
        : removeResourceClaimRequest(body, GATES);
    if (isRefusal(request)) return refusalReply(request);
    const { namespace, name } = r;
    const plan =
      r.resource === 'virtualmachines'
        ? planVmResourceClaim({ name, object: await this.vm(namespace, name), request })
        : planVmiResourceClaim({ name, object: await this.vmi(namespace, name), request });
    return isRefusal(plan) ? refusalReply(plan) : this.carryOut(r, plan, undefined);
  }

  private async command(
    r: SubresourceTarget,
    sub: VmiCommand,
    body: unknown,
    raw: string,
  ): Promise<SubresourceReply> {
    const [vmi, vm] = await Promise.all([
      this.vmi(r.namespace, r.name),
      sub === 'unpause' ? this.vm(r.namespace, r.name) : undefined,
    ]);
    const plan = planVmiCommand(sub, { name: r.name, vmi, vm, body, rawBody: raw });
    if (isRefusal(plan)) return refusalReply(plan);
    return 'dryRun' in plan ? OK_REPLY : this.forward(plan.call, raw);
  }

  private async query(r: SubresourceTarget, sub: VmiQuery): Promise<SubresourceReply> {
    const plan = planVmiQuery(sub, r.name, await this.vmi(r.namespace, r.name));
    return isRefusal(plan) ? refusalReply(plan) : this.forward(plan.call, '');
  }

  private async forward(call: HandlerCall, body: string): Promise<SubresourceReply> {
    const at = await this.handlerOf(call);
    if (isRefusal(at)) return refusalReply(at);
    try {
      const got = await callHandler(at, this.handlers.tls, {
        method: call.method,
        path: call.path,
        ...(call.body === 'request' && { body }),
      });
      if (got.status < 200 || got.status > 299) {
        const text = unexpectedReturnCode(
          got.status,
          STATUS_CODES[got.status] ?? String(got.status),
          got.text,
        );
        return refusalReply(handlerFailure(call, text));
      }
      return call.kind === 'query'
        ? { code: 200, body: got.text, contentType: 'application/json' }
        : ACCEPTED_REPLY;
    } catch (err) {
      return refusalReply(handlerFailure(call, errorMessage(err)));
    }
  }

  private async carryOut(
    r: SubresourceTarget,
    plan: VmPlan,
    vmi: VirtualMachineInstance | undefined,
  ): Promise<SubresourceReply> {
    for (const p of plan.patches) {
      try {
        await this.client.patch(
          p.target === 'vmi' ? VIRTUAL_MACHINE_INSTANCES : VIRTUAL_MACHINES,
          r.name,
          p.patch,
          {
            namespace: r.namespace,
            type: 'json',
            ...(p.target === 'vm/status' && { subresource: 'status' }),
            ...(p.dryRun !== undefined && { dryRun: true }),
          },
        );
      } catch (err) {
        const status = err instanceof StatusError ? { status: err.status } : {};
        return refusalReply(patchFailure(p, r.name, { message: errorMessage(err), ...status }));
      }
    }
    if (plan.deleteLauncherPod !== undefined && vmi !== undefined)
      await this.deleteLauncherPod(r.namespace, vmi);
    if (isRefusal(plan.then)) return refusalReply(plan.then);
    return plan.then.status === 200 ? OK_REPLY : ACCEPTED_REPLY;
  }

  private async deleteLauncherPod(ns: string, vmi: VirtualMachineInstance): Promise<void> {
    const pods = await this.client.list<KubeObject>(PODS, {
      namespace: ns,
      ...launcherPodSelectors(vmi.metadata.uid ?? ''),
    });
    const pod = pickLauncherPod(
      pods.items.map((x) => x.metadata.name ?? ''),
      vmi,
    );
    if (pod !== undefined) await this.client.delete(PODS, pod, { namespace: ns, gracePeriodSeconds: 1 });
  }
}
