/**
 * Reads kubevirt.io/v1 VMs and VMIs from the API server. A cluster that stores them under the Deckhouse names
 * (internal.virtualization.deckhouse.io, as this project's) serves no kubevirt.io group: the first read asks
 * for /apis/kubevirt.io/v1 and, when the group is not there, goes through the rewriter rules in process
 * instead, so the caller sees kubevirt.io objects either way. A missing object reads as undefined.
 */
import { VIRTUAL_MACHINES, VIRTUAL_MACHINE_INSTANCES } from '../kubevirt/gvr.ts';
import type { VirtualMachine, VirtualMachineInstance } from '../kubevirt/v1/objects.ts';
import { isNotFound } from '../kernel/errors/errors.ts';
import type { GroupVersionResource, KubeClient, KubeObject } from '../kernel/kube/index.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import type { VirtctlClient } from './client.ts';
import { RequestFailed } from './errors/failures.ts';

export class KubevirtReader {
  private chosen: Promise<KubeClient> | undefined;

  constructor(private readonly client: VirtctlClient) {}

  vmi(name: string): Promise<VirtualMachineInstance | undefined> {
    return this.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name);
  }

  vm(name: string): Promise<VirtualMachine | undefined> {
    return this.get<VirtualMachine>(VIRTUAL_MACHINES, name);
  }

  private async get<T extends KubeObject>(gvr: GroupVersionResource, name: string): Promise<T | undefined> {
    const kube = await this.kube();
    const { namespace } = this.client;
    try {
      return await kube.get<T>(gvr, name, { namespace });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      const path = `/apis/${gvr.group}/${gvr.version}/namespaces/${namespace}/${gvr.resource}/${name}`;
      throw new RequestFailed({ method: 'GET', path }, this.client.server, err);
    }
  }

  private kube(): Promise<KubeClient> {
    this.chosen ??= this.choose();
    return this.chosen;
  }

  private async choose(): Promise<KubeClient> {
    const direct = this.client.kube;
    try {
      await direct.request({
        method: 'GET',
        path: `/apis/${VIRTUAL_MACHINES.group}/${VIRTUAL_MACHINES.version}`,
      });
      return direct;
    } catch (err) {
      if (!isNotFound(err)) {
        throw new RequestFailed({ method: 'GET', path: '/apis/kubevirt.io/v1' }, this.client.server, err);
      }
      return rewritingClient(direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
    }
  }
}
