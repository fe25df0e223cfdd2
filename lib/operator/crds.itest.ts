/**
 * The internal CRDs against a real kube-apiserver: they install (idempotently) and become Established, valid
 * objects round-trip unchanged (nothing pruned), status goes through /status where KubeVirt has it and through
 * the main resource for VMIs, printer columns come back in Table form, and objects that break the schema are
 * rejected with 422 and the offending field named.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, request } from 'undici';
import { newNamespaceName } from '../../testenv/handle.ts';
import { isNotFound } from '../kernel/errors/errors.ts';
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  HttpKubeClient,
  loadRestConfig,
  NAMESPACES,
  gvrPath,
  type GroupVersionResource,
  type KubeObject,
  type RestConfig,
} from '../kernel/kube/index.ts';
import type { CustomResourceDefinition } from './generate/crds/build.ts';
import { installCrds } from './apply/install-crds.ts';
import {
  INTERNAL_KUBEVIRTS,
  INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  INTERNAL_VIRTUAL_MACHINE_INSTANCES,
  INTERNAL_VIRTUAL_MACHINES,
} from '../kubevirt/internal-gvr.ts';
import {
  kubevirtSpec,
  migrationSpec,
  richVmiSpec,
  richVmSpec,
  vmiStatusRunning,
  vmStatusRunning,
} from '../kubevirt/testing/fixtures.ts';
import type {
  KubeVirt,
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from '../kubevirt/v1/objects.ts';
import { statusFailure } from '../kernel/kube/testing/status-failure.ts';
import { malformed } from '../kernel/testing/malformed.ts';

const ns = newNamespaceName('api-crds');
let config: RestConfig;
let client: HttpKubeClient;

function object<T extends KubeObject>(
  gvr: GroupVersionResource,
  name: string,
  body: Omit<T, keyof KubeObject>,
): T {
  return {
    apiVersion: `${gvr.group}/${gvr.version}`,
    kind: gvr.kind,
    metadata: { name, namespace: ns },
    ...body,
  } as T;
}

interface Table {
  kind: string;
  columnDefinitions: { name: string }[];
  rows: { cells: unknown[] }[];
}

/** A list in Table form (kubectl get): HttpKubeClient always asks for plain JSON, so this goes direct. */
async function getTable(gvr: GroupVersionResource): Promise<Table> {
  const agent = new Agent({
    connect: {
      ...(config.ca !== undefined && { ca: config.ca }),
      ...(config.cert !== undefined && { cert: config.cert }),
      ...(config.key !== undefined && { key: config.key }),
      rejectUnauthorized: config.insecureSkipTLSVerify !== true,
    },
  });
  try {
    const res = await request(new URL(gvrPath(gvr, { namespace: ns }), config.server), {
      dispatcher: agent,
      headers: {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
        ...(config.token !== undefined && { authorization: `Bearer ${config.token}` }),
      },
    });
    expect(res.statusCode).toBe(200);
    return (await res.body.json()) as Table;
  } finally {
    await agent.close();
  }
}

function columns(table: Table, rowIndex = 0): Record<string, unknown> {
  const cells = table.rows[rowIndex]?.cells ?? [];
  return Object.fromEntries(table.columnDefinitions.map((c, i) => [c.name, cells[i]]));
}

beforeAll(async () => {
  config = loadRestConfig({ inCluster: false, userAgent: 'kubevirt-ts/api-itest' });
  client = new HttpKubeClient(config);
  await installCrds(client);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});

afterAll(async () => {
  // The CRDs stay: other tests install them too, and installCrds is idempotent.
  await client.delete(NAMESPACES, ns).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
  await client.close();
});

describe('installCrds against kube-apiserver', () => {
  it('installs all four CRDs, Established with their names accepted, and is idempotent', async () => {
    const names = await installCrds(client);
    expect(names).toHaveLength(4);
    for (const name of names) {
      const crd = await client.get<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITIONS, name);
      const conditions = Object.fromEntries((crd.status?.conditions ?? []).map((c) => [c.type, c.status]));
      expect(conditions).toMatchObject({ Established: 'True', NamesAccepted: 'True' });
      expect(crd.status?.acceptedNames?.categories).toEqual(['intvirt']);
    }
    const vm = await client.get<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITIONS, names[0] ?? '');
    expect(vm.status?.acceptedNames?.shortNames).toContain('intvirtvm');
  });
});

describe('VirtualMachine', () => {
  it('stores a rich VM unchanged and updates status only through /status', async () => {
    const sent = object<VirtualMachine>(INTERNAL_VIRTUAL_MACHINES, 'rich', { spec: richVmSpec() });
    const created = await client.create(INTERNAL_VIRTUAL_MACHINES, sent);
    expect(created.spec).toEqual(sent.spec);
    const read = await client.get<VirtualMachine>(INTERNAL_VIRTUAL_MACHINES, 'rich', { namespace: ns });
    expect(read.spec).toEqual(sent.spec);

    const status = vmStatusRunning();
    const updated = await client.update(
      INTERNAL_VIRTUAL_MACHINES,
      { ...read, status },
      { subresource: 'status' },
    );
    expect(updated.status).toEqual(status);

    // With the status subresource, a write of the main resource leaves status alone.
    const main = await client.update(INTERNAL_VIRTUAL_MACHINES, {
      ...updated,
      spec: { ...updated.spec, runStrategy: 'Halted' },
      status: { printableStatus: 'Stopped' },
    });
    expect(main.spec.runStrategy).toBe('Halted');
    expect(main.status).toEqual(status);
  });

  it('shows Age, Status and Ready as printer columns', async () => {
    const vm = object<VirtualMachine>(INTERNAL_VIRTUAL_MACHINES, 'columns', { spec: richVmSpec() });
    const created = await client.create(INTERNAL_VIRTUAL_MACHINES, vm);
    await client.update(
      INTERNAL_VIRTUAL_MACHINES,
      { ...created, status: vmStatusRunning() },
      { subresource: 'status' },
    );
    const table = await getTable(INTERNAL_VIRTUAL_MACHINES);
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Age', 'Status', 'Ready']);
    const row = table.rows.map((_, i) => columns(table, i)).find((r) => r['Name'] === 'columns');
    expect(row).toMatchObject({ Status: 'Running', Ready: 'True' });
  });

  it.each<[string, (spec: Record<string, unknown>) => void, string]>([
    ['runStrategy outside the enum', (s) => (s['runStrategy'] = 'Sometimes'), 'spec.runStrategy'],
    [
      'memory.guest as an object',
      (s) => (template(s)['domain'] = { memory: { guest: { value: 1 } }, devices: {} }),
      'spec.template.spec.domain.memory.guest',
    ],
    [
      'disks not an array',
      (s) => (template(s)['domain'] = { devices: { disks: { name: 'root' } } }),
      'spec.template.spec.domain.devices.disks',
    ],
    [
      'a disk bus outside the enum',
      (s) => (template(s)['domain'] = { devices: { disks: [{ name: 'd', disk: { bus: 'ide' } }] } }),
      'spec.template.spec.domain.devices.disks[0].disk.bus',
    ],
    [
      'a volume without a name',
      (s) => (template(s)['volumes'] = [{ containerDisk: { image: 'x' } }]),
      'spec.template.spec.volumes[0].name',
    ],
    [
      'cpu cores as a string',
      (s) => (template(s)['domain'] = { cpu: { cores: 'two' }, devices: {} }),
      'spec.template.spec.domain.cpu.cores',
    ],
    ['no template', (s) => delete s['template'], 'spec.template'],
  ])('rejects %s with 422 naming the field', async (name, breakIt, field) => {
    const spec: Record<string, unknown> = { ...richVmSpec() };
    breakIt(spec);
    const vm = object<VirtualMachine>(
      INTERNAL_VIRTUAL_MACHINES,
      `bad-${name.replace(/[^a-z]+/g, '-')}`.slice(0, 50),
      {
        spec: malformed<VirtualMachine['spec']>(spec),
      },
    );
    const err = await statusFailure(client.create(INTERNAL_VIRTUAL_MACHINES, vm));
    expect(err.httpCode).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.status.details?.causes?.map((c) => c.field)).toContain(field);
  });

  it('rejects a printableStatus outside the enum on /status', async () => {
    const created = await client.create(
      INTERNAL_VIRTUAL_MACHINES,
      object<VirtualMachine>(INTERNAL_VIRTUAL_MACHINES, 'bad-status', { spec: richVmSpec() }),
    );
    const bad = { ...created, status: malformed<VirtualMachine['status']>({ printableStatus: 'Dancing' }) };
    const err = await statusFailure(client.update(INTERNAL_VIRTUAL_MACHINES, bad, { subresource: 'status' }));
    expect(err.httpCode).toBe(422);
    expect(err.status.details?.causes?.map((c) => c.field)).toContain('status.printableStatus');
  });
});

function template(spec: Record<string, unknown>): Record<string, unknown> {
  return (spec['template'] as { spec: Record<string, unknown> }).spec;
}

describe('VirtualMachineInstance', () => {
  it('keeps status in the main resource (no status subresource, as in KubeVirt) and shows its columns', async () => {
    const sent = object<VirtualMachineInstance>(INTERNAL_VIRTUAL_MACHINE_INSTANCES, 'rich', {
      spec: richVmiSpec(),
    });
    const created = await client.create(INTERNAL_VIRTUAL_MACHINE_INSTANCES, sent);
    expect(created.spec).toEqual(sent.spec);

    const status = vmiStatusRunning();
    const updated = await client.update(INTERNAL_VIRTUAL_MACHINE_INSTANCES, {
      ...created,
      metadata: {
        ...created.metadata,
        labels: { 'kubevirt.internal.virtualization.deckhouse.io/nodeName': 'node-a' },
      },
      status,
    });
    expect(updated.status).toEqual(status);
    const read = await client.get<VirtualMachineInstance>(INTERNAL_VIRTUAL_MACHINE_INSTANCES, 'rich', {
      namespace: ns,
    });
    expect(read.status).toEqual(status);
    expect(read.metadata.labels).toEqual({
      'kubevirt.internal.virtualization.deckhouse.io/nodeName': 'node-a',
    });
    const noStatus = await statusFailure(
      client.update(INTERNAL_VIRTUAL_MACHINE_INSTANCES, read, { subresource: 'status' }),
    );
    expect(noStatus.httpCode).toBe(404);

    const table = await getTable(INTERNAL_VIRTUAL_MACHINE_INSTANCES);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Age',
      'Phase',
      'IP',
      'NodeName',
      'Ready',
      'Live-Migratable',
      'Paused',
    ]);
    expect(columns(table)).toMatchObject({
      Name: 'rich',
      Phase: 'Running',
      IP: '10.66.0.12',
      NodeName: 'node-a',
      Ready: 'True',
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a phase outside the enum', { phase: 'Sleeping' }, 'status.phase'],
    ['a volume status without a target', { volumeStatus: [{ name: 'x' }] }, 'status.volumeStatus[0].target'],
    ['interfaces not an array', { interfaces: { ipAddress: '1.2.3.4' } }, 'status.interfaces'],
  ])('rejects %s with 422', async (name, status, field) => {
    const vmi = object<VirtualMachineInstance>(
      INTERNAL_VIRTUAL_MACHINE_INSTANCES,
      `bad-${name.replace(/[^a-z]+/g, '-')}`.slice(0, 50),
      {
        spec: richVmiSpec(),
        status,
      },
    );
    const err = await statusFailure(client.create(INTERNAL_VIRTUAL_MACHINE_INSTANCES, vmi));
    expect(err.httpCode).toBe(422);
    expect(err.status.details?.causes?.map((c) => c.field)).toContain(field);
  });
});

describe('KubeVirt and VirtualMachineInstanceMigration', () => {
  it('store a KubeVirt CR with its untyped configuration kept, and its phase through /status', async () => {
    const sent = object<KubeVirt>(INTERNAL_KUBEVIRTS, 'config', { spec: kubevirtSpec() });
    const created = await client.create(INTERNAL_KUBEVIRTS, sent);
    expect(created.spec).toEqual(sent.spec);
    const status = {
      phase: 'Deployed' as const,
      conditions: [{ type: 'Available', status: 'True' as const }],
    };
    const updated = await client.update(
      INTERNAL_KUBEVIRTS,
      { ...created, status },
      { subresource: 'status' },
    );
    expect(updated.status).toEqual(status);
    expect(columns(await getTable(INTERNAL_KUBEVIRTS))).toMatchObject({ Name: 'config', Phase: 'Deployed' });
  });

  it('store a migration and show Phase and VMI', async () => {
    const sent = object<VirtualMachineInstanceMigration>(
      INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
      'mig',
      {
        spec: migrationSpec('rich'),
      },
    );
    const created = await client.create(INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, sent);
    expect(created.spec).toEqual(sent.spec);
    await client.update(
      INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
      { ...created, status: { phase: 'Scheduling' } },
      { subresource: 'status' },
    );
    const table = await getTable(INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Phase', 'VMI']);
    expect(columns(table)).toMatchObject({ Name: 'mig', Phase: 'Scheduling', VMI: 'rich' });
    const bad = object<VirtualMachineInstanceMigration>(INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, 'bad', {
      spec: { vmiName: 'x', sendTo: { migrationID: 'id' } } as VirtualMachineInstanceMigration['spec'],
    });
    const err = await statusFailure(client.create(INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, bad));
    expect(err.httpCode).toBe(422);
    expect(err.status.details?.causes?.map((c) => c.field)).toContain('spec.sendTo.connectURL');
  });
});
