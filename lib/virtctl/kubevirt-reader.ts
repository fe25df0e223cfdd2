/**
 * Reads kubevirt.io/v1 VMs and VMIs from the API server. A cluster that stores them under the Deckhouse names
 * (internal.virtualization.deckhouse.io, as this project's) serves no kubevirt.io group: the first read asks
 * for /apis/kubevirt.io/v1 and, when the group is not there, goes through the rewriter rules in process
 * instead, so the caller sees kubevirt.io objects either way. A missing object reads as undefined. The VMI's
 * migrations are listed, and one deleted, the same way (migrate-cancel).
 */
import {
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINES,
  VIRTUAL_MACHINE_INSTANCES,
} from '../kubevirt/gvr.ts';
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from '../kubevirt/v1/objects.ts';
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

  /** The namespace's migrations that match the label selector. */
  async migrations(labelSelector: string): Promise<VirtualMachineInstanceMigration[]> {
    const kube = await this.kube();
    const { namespace } = this.client;
    try {
      const list = await kube.list<VirtualMachineInstanceMigration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, {
        namespace,
        labelSelector,
      });
      return list.items;
    } catch (err) {
      throw new RequestFailed(
        { method: 'GET', path: this.pathOf(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS) },
        this.client.server,
        err,
      );
    }
  }

  async deleteMigration(name: string): Promise<void> {
    const kube = await this.kube();
    try {
      await kube.delete(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, name, { namespace: this.client.namespace });
    } catch (err) {
      const path = `${this.pathOf(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS)}/${name}`;
      throw new RequestFailed({ method: 'DELETE', path }, this.client.server, err);
    }
  }

  private pathOf(gvr: GroupVersionResource): string {
    return `/apis/${gvr.group}/${gvr.version}/namespaces/${this.client.namespace}/${gvr.resource}`;
  }

  private async get<T extends KubeObject>(gvr: GroupVersionResource, name: string): Promise<T | undefined> {
    const kube = await this.kube();
    const { namespace } = this.client;
    try {
      return await kube.get<T>(gvr, name, { namespace });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw new RequestFailed(
        { method: 'GET', path: `${this.pathOf(gvr)}/${name}` },
        this.client.server,
        err,
      );
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
