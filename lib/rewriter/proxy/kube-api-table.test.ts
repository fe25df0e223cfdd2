import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { internalVmi, originalVmi, type VmiObject } from '../../rename/testing/objects.ts';
import { call, startHarness, type Harness } from './testing/harness.ts';

const VMIS = '/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances';
const KUBECTL = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const TABLE_TYPE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** The row object of includeObject=Metadata; its managedFields name the VMI's version (restored by kind). */
const partial = (vmi: VmiObject): Record<string, unknown> => ({
  kind: 'PartialObjectMetadata',
  apiVersion: 'meta.k8s.io/v1',
  metadata: {
    ...vmi.metadata,
    managedFields: [{ apiVersion: vmi.apiVersion, manager: 'm', operation: 'Update' }],
  },
});

/** A Table as the API server sends it for VMIs; `of` gives each row's object (stored or restored names). */
function table(names: string[], of: (name: string) => VmiObject): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '12' },
    columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0 }],
    rows: names.map((name) => ({ cells: [name], object: partial(of(name)) })),
  };
}
const stored = (name: string): VmiObject => internalVmi({ name });
const restored = (name: string): VmiObject => originalVmi({ name });

function sendTable(res: ServerResponse, type: string, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

describe('kube-api proxy: Table answers (kubectl get)', () => {
  it.each([
    ['as the API server sends it (plain JSON)', 'application/json'],
    ['announced in the content type', TABLE_TYPE],
  ])('restores the rows of a list Table %s', async (_name, type) => {
    h.upstream.handler = (_req, res) => {
      sendTable(res, type, table(['a', 'b'], stored));
    };
    const r = await call(h, VMIS, { headers: { accept: KUBECTL } });
    expect(h.upstream.last.headers['accept']).toBe(KUBECTL);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual(table(['a', 'b'], restored));
  });

  it('restores the row of one object and keeps includeObject', async () => {
    h.upstream.handler = (_req, res) => {
      sendTable(res, TABLE_TYPE, table(['a'], stored));
    };
    const r = await call(h, `${VMIS}/a?includeObject=Metadata`, { headers: { accept: KUBECTL } });
    expect(h.upstream.last.url).toMatch(/\?includeObject=Metadata$/);
    expect(r.json()).toEqual(table(['a'], restored));
  });

  it('restores the Tables of a watch (kubectl get -w) event by event', async () => {
    let up: ServerResponse | undefined;
    const opened = new Promise<void>((resolve) => {
      h.upstream.handler = (_req, res) => {
        res.writeHead(200, { 'content-type': TABLE_TYPE });
        res.flushHeaders();
        up = res;
        resolve();
      };
    });
    const client = request(`${h.base}${VMIS}?watch=1`, {
      dispatcher: h.client,
      headers: { ...h.auth, accept: KUBECTL },
    });
    await opened;
    const events = [
      { type: 'ADDED', object: table(['a'], stored) },
      { type: 'MODIFIED', object: { ...table(['a'], stored), columnDefinitions: null } },
    ];
    up?.end(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const text = await (await client).body.text();
    expect(
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { type: 'ADDED', object: table(['a'], restored) },
      { type: 'MODIFIED', object: { ...table(['a'], restored), columnDefinitions: null } },
    ]);
  });
});
