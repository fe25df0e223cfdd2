import { describe, expect, it } from '@jest/globals';
import { StatusError, newStatus } from '../../kernel/errors/errors.ts';
import type { GroupVersionResource, KubeObject } from '../../kernel/kube/types.ts';
import type { Rendered } from '../config/install-config.ts';
import { applySet, deleteAll, pruneSet } from './apply-set.ts';
import { installedKind } from './kinds.ts';

const obj = (
  apiVersion: string,
  kind: string,
  name: string,
  extra: Record<string, unknown> = {},
): Rendered => ({
  apiVersion,
  kind,
  metadata: {
    name,
    ...(kind.includes('Cluster') || kind.endsWith('Configuration') ? {} : { namespace: 'ns' }),
  },
  ...extra,
});
const deployment = obj('apps/v1', 'Deployment', 'virt-api', { spec: { replicas: 2 } });
const account = obj('v1', 'ServiceAccount', 'sa');
const webhook = obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'v');

function fakeClient(notFound: readonly string[] = []) {
  const calls: string[] = [];
  return {
    calls,
    patch: (
      gvr: GroupVersionResource,
      name: string,
      _body: unknown,
      o: { type: string; force?: boolean; fieldManager?: string },
    ) => {
      calls.push(`apply ${gvr.kind} ${name} ${o.type} force=${String(o.force)} ${o.fieldManager ?? ''}`);
      return Promise.resolve({} as KubeObject);
    },
    delete: (gvr: GroupVersionResource, name: string) => {
      calls.push(`delete ${gvr.kind} ${name}`);
      return notFound.includes(name)
        ? Promise.reject(new StatusError(newStatus(404, 'gone')))
        : Promise.resolve();
    },
  };
}

describe('applySet', () => {
  it('applies in creation order with the operator field manager, skipping what the live object covers', async () => {
    const client = fakeClient();
    const live = new Map([['virt-api', { ...deployment, metadata: { ...deployment.metadata, uid: 'x' } }]]);
    const applied = await applySet([webhook, deployment, account], {
      client,
      live: (_g, _ns, name) => live.get(name),
    });
    expect(client.calls).toEqual([
      'apply ServiceAccount sa apply force=true kubevirt-ts-operator',
      'apply ValidatingWebhookConfiguration v apply force=true kubevirt-ts-operator',
    ]);
    expect(applied).toEqual(['ServiceAccount ns/sa', 'ValidatingWebhookConfiguration v']);
  });

  it('applies an object edited by hand again', async () => {
    const client = fakeClient();
    const edited = { ...deployment, spec: { replicas: 0 } };
    await applySet([deployment], { client, live: () => edited });
    expect(client.calls).toEqual(['apply Deployment virt-api apply force=true kubevirt-ts-operator']);
  });

  it('refuses a kind the operator does not install', async () => {
    await expect(
      applySet([obj('v1', 'Pod', 'p')], { client: fakeClient(), live: () => undefined }),
    ).rejects.toThrow('the operator does not install v1 Pod');
  });
});

describe('pruneSet and deleteAll', () => {
  const live = (o: Rendered): { gvr: GroupVersionResource; obj: KubeObject } => ({
    gvr: installedKind(o.apiVersion, o.kind),
    obj: { metadata: o.metadata },
  });

  it('deletes the labelled objects the set no longer holds, in reverse creation order', async () => {
    const client = fakeClient();
    const old = obj('apps/v1', 'Deployment', 'old');
    const deleted = await pruneSet(
      [deployment],
      [live(account), live(deployment), live(old), live(webhook)],
      client,
    );
    expect(client.calls).toEqual([
      'delete ValidatingWebhookConfiguration v',
      'delete Deployment old',
      'delete ServiceAccount sa',
    ]);
    expect(deleted).toHaveLength(3);
  });

  it('counts an object already gone as deleted and stops at another error', async () => {
    expect(await deleteAll([live(account)], fakeClient(['sa']))).toEqual(['ServiceAccount ns/sa']);
    const failing = {
      delete: () => Promise.reject(new StatusError(newStatus(403, 'forbidden'))),
    };
    await expect(deleteAll([live(account)], failing)).rejects.toThrow('forbidden');
  });
});
