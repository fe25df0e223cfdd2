/**
 * The kube-api proxy against a real kube-apiserver with the internal CRDs: a client speaking kubevirt.io through
 * the proxy creates, reads, lists (paged, with kubevirt.io/* label selectors), watches (resuming from a
 * resourceVersion, with bookmarks), patches, updates status and deletes VMs and VMIs, while the same objects
 * read straight from the API server carry only the internal names; discovery shows kubevirt.io/v1. The proxy's
 * TCP port forwards a request only with the client's own token, and as that client (the API server sees no
 * certificate of the rewriter's); its unix socket serves a request without credentials as the rewriter.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stat } from 'node:fs/promises';
import { Agent, request } from 'undici';
import { VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../../kubevirt/gvr.ts';
import { INTERNAL_VIRTUAL_MACHINE_INSTANCES, INTERNAL_VIRTUAL_MACHINES } from '../../kubevirt/internal-gvr.ts';
import { richVmiSpec, richVmSpec, vmStatusRunning } from '../../kubevirt/testing/fixtures.ts';
import { isNotFound } from '../../kernel/errors/errors.ts';
import type { KubeObject, WatchEvent } from '../../kernel/kube/index.ts';
import { startCluster, type Cluster } from './testing/cluster.ts';
import { Upstream } from './upstream.ts';
import { IG, INT } from '../../rename/testing/objects.ts';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster('rewriter-proxy');
});
afterAll(async () => {
  await c.close();
});

interface Obj extends KubeObject {
  spec?: unknown;
  status?: Record<string, unknown>;
}

function vm(name: string): Obj {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: {
      name,
      namespace: c.ns,
      labels: { 'kubevirt.io/vm': name },
      annotations: { 'kubevirt.io/latest-observed-api-version': 'v1' },
      finalizers: ['kubevirt.io/virtualMachineControllerFinalize'],
    },
    spec: richVmSpec(),
  };
}

function vmi(name: string, labels: Record<string, string> = {}): Obj {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: c.ns, labels: { 'kubevirt.io/vm': name, ...labels } },
    spec: richVmiSpec(),
  };
}

/** The object as stored: internal group and kind, and no kubevirt.io key left in labels, annotations, finalizers. */
function expectInternalOnly(obj: Obj, kind: string): void {
  expect(obj.apiVersion).toBe(`${IG}/v1`);
  expect(obj.kind).toBe(`InternalVirtualization${kind}`);
  const keys = [
    ...Object.keys(obj.metadata.labels ?? {}),
    ...Object.keys(obj.metadata.annotations ?? {}),
    ...(obj.metadata.finalizers ?? []),
  ];
  expect(keys.filter((k) => k.startsWith('kubevirt.io'))).toEqual([]);
}

describe('kube-api proxy against kube-apiserver', () => {
  it('creates, gets, patches (json and merge), updates status and deletes a VirtualMachine', async () => {
    const created = await c.viaProxy.create<Obj>(VIRTUAL_MACHINES, vm('vm1'));
    expect(created).toMatchObject({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine' });
    expect(created.metadata.finalizers).toEqual(['kubevirt.io/virtualMachineControllerFinalize']);
    expect(created.spec).toEqual(richVmSpec());

    const stored = await c.direct.get<Obj>(INTERNAL_VIRTUAL_MACHINES, 'vm1', { namespace: c.ns });
    expectInternalOnly(stored, 'VirtualMachine');
    expect(stored.metadata.labels).toEqual({ [`${INT}/vm`]: 'vm1' });
    expect(stored.metadata.finalizers).toEqual([`${INT}/virtualMachineControllerFinalize`]);

    const got = await c.viaProxy.get<Obj>(VIRTUAL_MACHINES, 'vm1', { namespace: c.ns });
    expect(got.metadata.labels).toEqual({ 'kubevirt.io/vm': 'vm1' });

    await c.viaProxy.patch(
      VIRTUAL_MACHINES,
      'vm1',
      [{ op: 'add', path: '/metadata/labels/kubevirt.io~1nodeName', value: 'n1' }],
      {
        namespace: c.ns,
        type: 'json',
      },
    );
    const merged = await c.viaProxy.patch<Obj>(
      VIRTUAL_MACHINES,
      'vm1',
      { metadata: { annotations: { 'kubevirt.io/storage-observed-api-version': 'v1' } } },
      { namespace: c.ns, type: 'merge' },
    );
    expect(merged.metadata.labels).toEqual({ 'kubevirt.io/vm': 'vm1', 'kubevirt.io/nodeName': 'n1' });
    expect(merged.metadata.annotations).toMatchObject({ 'kubevirt.io/storage-observed-api-version': 'v1' });

    const withStatus = await c.viaProxy.update<Obj>(
      VIRTUAL_MACHINES,
      { ...merged, status: vmStatusRunning() },
      { subresource: 'status' },
    );
    expect(withStatus.status).toMatchObject({ printableStatus: 'Running', ready: true });

    const after = await c.direct.get<Obj>(INTERNAL_VIRTUAL_MACHINES, 'vm1', { namespace: c.ns });
    expectInternalOnly(after, 'VirtualMachine');
    expect(after.metadata.labels).toEqual({ [`${INT}/vm`]: 'vm1', [`${INT}/nodeName`]: 'n1' });
    expect(after.status).toMatchObject({ printableStatus: 'Running' });

    // The finalizer holds the delete until it is removed (through the proxy, by its original name).
    await c.viaProxy.delete(VIRTUAL_MACHINES, 'vm1', { namespace: c.ns });
    const deleting = await c.viaProxy.get<Obj>(VIRTUAL_MACHINES, 'vm1', { namespace: c.ns });
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    await c.viaProxy.patch(
      VIRTUAL_MACHINES,
      'vm1',
      [
        { op: 'test', path: '/metadata/finalizers/0', value: 'kubevirt.io/virtualMachineControllerFinalize' },
        { op: 'remove', path: '/metadata/finalizers/0' },
      ],
      { namespace: c.ns, type: 'json' },
    );
    const gone = await c.direct
      .get(INTERNAL_VIRTUAL_MACHINES, 'vm1', { namespace: c.ns })
      .catch((e: unknown) => e);
    expect(isNotFound(gone)).toBe(true);
    const goneViaProxy = await c.viaProxy
      .get(VIRTUAL_MACHINES, 'vm1', { namespace: c.ns })
      .catch((e: unknown) => e);
    expect(isNotFound(goneViaProxy)).toBe(true);
    expect((goneViaProxy as Error).message).toBe('virtualmachines.kubevirt.io "vm1" not found');
  });

  it('lists VMIs in pages with kubevirt.io/* label selectors', async () => {
    for (let i = 0; i < 5; i++)
      await c.viaProxy.create(
        VIRTUAL_MACHINE_INSTANCES,
        vmi(`page-${i}`, { 'kubevirt.io/nodeName': i < 3 ? 'n1' : 'n2' }),
      );
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await c.viaProxy.list<Obj>(VIRTUAL_MACHINE_INSTANCES, {
        namespace: c.ns,
        labelSelector: 'kubevirt.io/nodeName=n1',
        limit: 2,
        ...(cont !== undefined && { continue: cont }),
      });
      expect(page).toMatchObject({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstanceList' });
      for (const item of page.items) {
        expect(item.metadata.labels?.['kubevirt.io/nodeName']).toBe('n1');
        names.push(item.metadata.name ?? '');
      }
      cont = page.metadata.continue || undefined;
      pages++;
    } while (cont !== undefined);
    expect(pages).toBe(2);
    expect(names.sort()).toEqual(['page-0', 'page-1', 'page-2']);

    const set = await c.viaProxy.list<Obj>(VIRTUAL_MACHINE_INSTANCES, {
      namespace: c.ns,
      labelSelector: 'kubevirt.io/nodeName in (n2),kubevirt.io/vm!=page-4',
    });
    expect(set.items.map((i) => i.metadata.name)).toEqual(['page-3']);

    const stored = await c.direct.list<Obj>(INTERNAL_VIRTUAL_MACHINE_INSTANCES, {
      namespace: c.ns,
      labelSelector: `${INT}/nodeName=n2`,
    });
    expect(stored.items).toHaveLength(2);
    for (const item of stored.items)
      expectInternalOnly(
        { ...item, apiVersion: `${IG}/v1`, kind: 'InternalVirtualizationVirtualMachineInstance' },
        'VirtualMachineInstance',
      );
  });

  it('watches VMIs, resuming from a resourceVersion, with events restored in order', async () => {
    const start = await c.viaProxy.list(VIRTUAL_MACHINE_INSTANCES, {
      namespace: c.ns,
      labelSelector: 'kubevirt.io/vm=w1',
    });
    const ac = new AbortController();
    const seen: WatchEvent<Obj>[] = [];
    const watching = (async (): Promise<void> => {
      for await (const ev of c.viaProxy.watch<Obj>(
        VIRTUAL_MACHINE_INSTANCES,
        {
          namespace: c.ns,
          labelSelector: 'kubevirt.io/vm=w1',
          resourceVersion: start.metadata.resourceVersion ?? '',
          allowWatchBookmarks: true,
        },
        ac.signal,
      )) {
        seen.push(ev);
        if (ev.type === 'DELETED') return;
      }
    })();
    // Written straight to the API server with internal names: the proxy's watcher sees kubevirt.io.
    await c.direct.create(INTERNAL_VIRTUAL_MACHINE_INSTANCES, {
      ...vmi('w1'),
      apiVersion: `${IG}/v1`,
      kind: 'InternalVirtualizationVirtualMachineInstance',
      metadata: { name: 'w1', namespace: c.ns, labels: { [`${INT}/vm`]: 'w1' } },
    });
    await c.viaProxy.patch(
      VIRTUAL_MACHINE_INSTANCES,
      'w1',
      { metadata: { labels: { 'kubevirt.io/nodeName': 'n9' } } },
      { namespace: c.ns, type: 'merge' },
    );
    await c.direct.delete(INTERNAL_VIRTUAL_MACHINE_INSTANCES, 'w1', { namespace: c.ns });
    await watching;
    ac.abort();
    const changes = seen.filter((e) => e.type !== 'BOOKMARK');
    expect(changes.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const objects = changes.map((e) => e.object as Obj);
    for (const o of objects) {
      expect(o).toMatchObject({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance' });
      expect(o.metadata.labels?.['kubevirt.io/vm']).toBe('w1');
    }
    expect(objects[1]?.metadata.labels?.['kubevirt.io/nodeName']).toBe('n9');

    // Resume from the MODIFIED event: the API server replays what came after it, through the proxy.
    const resumeFrom = objects[1]?.metadata.resourceVersion ?? '';
    const replay: WatchEvent<Obj>[] = [];
    const ac2 = new AbortController();
    for await (const ev of c.viaProxy.watch<Obj>(
      VIRTUAL_MACHINE_INSTANCES,
      { namespace: c.ns, labelSelector: 'kubevirt.io/vm=w1', resourceVersion: resumeFrom },
      ac2.signal,
    )) {
      replay.push(ev);
      if (ev.type === 'DELETED') break;
    }
    ac2.abort();
    expect(replay.map((e) => [e.type, e.object.kind])).toEqual([['DELETED', 'VirtualMachineInstance']]);
  });

  it('sends the initial-events-end BOOKMARK restored to kubevirt.io', async () => {
    await c.viaProxy.create(VIRTUAL_MACHINE_INSTANCES, vmi('bm1'));
    const ac = new AbortController();
    const res = await request(
      `${c.proxyUrl}/apis/kubevirt.io/v1/namespaces/${c.ns}/virtualmachineinstances?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=kubevirt.io%2Fvm%3Dbm1`,
      { signal: ac.signal, headers: { authorization: `Bearer ${c.token}` } },
    );
    expect(res.statusCode).toBe(200);
    const events: { type: string; object: Obj }[] = [];
    let buf = '';
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        buf += chunk.toString('utf8');
        let nl;
        while ((nl = buf.indexOf('\n')) !== -1) {
          events.push(JSON.parse(buf.slice(0, nl)) as { type: string; object: Obj });
          buf = buf.slice(nl + 1);
        }
        if (events.some((e) => e.type === 'BOOKMARK')) break;
      }
    } finally {
      ac.abort();
    }
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(events[1]?.object).toMatchObject({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
  });

  it('shows kubevirt.io/v1 with the original resources in discovery', async () => {
    const resources = await c.viaProxy.request<{
      groupVersion: string;
      resources: { name: string; kind: string; shortNames?: string[] }[];
    }>({
      method: 'GET',
      path: '/apis/kubevirt.io/v1',
    });
    expect(resources.groupVersion).toBe('kubevirt.io/v1');
    expect(resources.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'virtualmachines',
          kind: 'VirtualMachine',
          shortNames: expect.arrayContaining(['vm']) as unknown,
        }),
        expect.objectContaining({ name: 'virtualmachineinstances', kind: 'VirtualMachineInstance' }),
        expect.objectContaining({ name: 'virtualmachines/status' }),
      ]),
    );
    const groups = await c.viaProxy.request<{ groups: { name: string }[] }>({ method: 'GET', path: '/apis' });
    expect(groups.groups.map((g) => g.name)).toContain('kubevirt.io');
    expect(groups.groups.map((g) => g.name)).not.toContain(IG);
    const direct = await c.direct.request<{ groups: { name: string }[] }>({ method: 'GET', path: '/apis' });
    expect(direct.groups.map((g) => g.name)).toContain(IG);
    expect(direct.groups.map((g) => g.name)).not.toContain('kubevirt.io');
  });

  it('answers kubectl Table requests with the CRD printer columns and restored row metadata', async () => {
    for (const name of ['t1', 't2']) await c.viaProxy.create(VIRTUAL_MACHINES, vm(name));
    const proxied = await tableGet(`${c.proxyUrl}/apis/kubevirt.io/v1/namespaces/${c.ns}/virtualmachines`);
    const direct = await directTableGet(
      `/apis/${IG}/v1/namespaces/${c.ns}/internalvirtualizationvirtualmachines`,
    );
    expect(direct.kind).toBe('Table');
    expect(proxied.kind).toBe('Table');
    const columns = (t: Table): string[] => t.columnDefinitions.map((col) => col.name);
    expect(columns(proxied)).toEqual(columns(direct));
    expect(columns(proxied)).toEqual(expect.arrayContaining(['Name', 'Status', 'Ready']));
    const rows = proxied.rows.filter((r) => ['t1', 't2'].includes(r.object?.metadata.name ?? ''));
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.object?.kind).toBe('PartialObjectMetadata');
      const { name = '', labels, finalizers } = r.object?.metadata ?? {};
      expect(r.cells[0]).toBe(name);
      expect(labels).toEqual({ 'kubevirt.io/vm': name });
      expect(finalizers).toEqual(['kubevirt.io/virtualMachineControllerFinalize']);
      expect(r.object?.metadata.managedFields?.map((f) => f.apiVersion)).toEqual(['kubevirt.io/v1']);
    }
    // The same rows straight from the API server carry the internal names.
    expect(direct.rows.map((r) => Object.keys(r.object?.metadata.labels ?? {}))).toContainEqual([
      `${INT}/vm`,
    ]);

    const one = await tableGet(
      `${c.proxyUrl}/apis/kubevirt.io/v1/namespaces/${c.ns}/virtualmachines/t1?includeObject=Object`,
    );
    expect(one.rows).toHaveLength(1);
    expect(one.rows[0]?.object).toMatchObject({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 't1', labels: { 'kubevirt.io/vm': 't1' } },
    });
  });

  it('watches with as=Table (kubectl get -w): Table events with restored row metadata', async () => {
    const ac = new AbortController();
    const res = await request(
      `${c.proxyUrl}/apis/kubevirt.io/v1/namespaces/${c.ns}/virtualmachines?watch=1&labelSelector=kubevirt.io%2Fvm%3Dtw1`,
      { signal: ac.signal, headers: { accept: KUBECTL_TABLE, authorization: `Bearer ${c.token}` } },
    );
    expect(res.statusCode).toBe(200);
    await c.viaProxy.create(VIRTUAL_MACHINES, vm('tw1'));
    let first: { type: string; object: Table } | undefined;
    let buf = '';
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        buf += chunk.toString('utf8');
        const nl = buf.indexOf('\n');
        if (nl === -1) continue;
        first = JSON.parse(buf.slice(0, nl)) as { type: string; object: Table };
        break;
      }
    } finally {
      ac.abort();
    }
    expect(first?.type).toBe('ADDED');
    expect(first?.object.kind).toBe('Table');
    expect(first?.object.rows[0]?.object?.metadata).toMatchObject({
      name: 'tw1',
      labels: { 'kubevirt.io/vm': 'tw1' },
      finalizers: ['kubevirt.io/virtualMachineControllerFinalize'],
    });
  });
});

const KUBECTL_TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Table {
  kind: string;
  columnDefinitions: { name: string }[];
  rows: { cells: unknown[]; object?: Obj & { metadata: { managedFields?: { apiVersion?: string }[] } } }[];
}

/** A GET as kubectl sends it, through the proxy. */
async function tableGet(url: string): Promise<Table> {
  const res = await request(url, { headers: { accept: KUBECTL_TABLE, authorization: `Bearer ${c.token}` } });
  expect(res.statusCode).toBe(200);
  return (await res.body.json()) as Table;
}

/** The same GET straight to the API server. */
async function directTableGet(path: string): Promise<Table> {
  const upstream = new Upstream({ config: c.config, keepAliveTimeout: 10 });
  try {
    const res = await upstream.request({
      method: 'GET',
      url: path,
      headers: { accept: KUBECTL_TABLE },
      signal: AbortSignal.timeout(10_000),
      as: 'rewriter',
    });
    expect(res.statusCode).toBe(200);
    return (await res.body.json()) as Table;
  } finally {
    await upstream.destroy();
  }
}

/** Who the API server says the caller is (SelfSubjectReview), asked through `dispatcher` at `base`. */
async function whoAmI(
  base: string,
  o: { dispatcher?: Agent; headers?: Record<string, string> } = {},
): Promise<{ status: number; user?: string }> {
  const res = await request(`${base}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...o.headers },
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    ...(o.dispatcher !== undefined && { dispatcher: o.dispatcher }),
  });
  const body = (await res.body.json()) as { status?: { userInfo?: { username?: string } } };
  const user = body.status?.userInfo?.username;
  return { status: res.statusCode, ...(user !== undefined && { user }) };
}

describe('kube-api proxy against kube-apiserver: whose identity', () => {
  it('answers a request without credentials on TCP with 401, lending it nothing', async () => {
    const res = await request(`${c.proxyUrl}/apis/kubevirt.io/v1/namespaces/${c.ns}/virtualmachines`);
    expect(res.statusCode).toBe(401);
    expect(await res.body.json()).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    expect((await whoAmI(c.proxyUrl)).status).toBe(401);
  });

  it("runs a request with a bearer token as that token's user, not as the rewriter's certificate", async () => {
    expect(await whoAmI(c.proxyUrl, { headers: { authorization: `Bearer ${c.token}` } })).toEqual({
      status: 201,
      user: c.user,
    });
  });

  it('serves a request without credentials on its 0600 unix socket as the rewriter', async () => {
    expect((await stat(c.socketPath)).mode & 0o777).toBe(0o600);
    const dispatcher = new Agent({ connect: { socketPath: c.socketPath }, keepAliveTimeout: 10 });
    try {
      expect(await whoAmI('http://localhost', { dispatcher })).toEqual({ status: 201, user: 'admin' });
    } finally {
      await dispatcher.destroy();
    }
  });
});
