import { describe, expect, it } from '@jest/globals';
import { restoreContext, type RewriteContext } from './context.ts';
import { rewriteDocument } from './document.ts';
import type { ObjectType } from './exclude.ts';
import type { JsonRecord } from './json.ts';
import { KUBEVIRT_REWRITE_RULES } from './rules/kubevirt-rules.ts';
import { buildRuleIndex } from './rules/rule-index.ts';
import { parseTarget } from './target.ts';
import { isTable, restoreTable, storedTypeOf } from './table.ts';
import { IG, INT } from './testing/objects.ts';
import { deepFreeze, KUBEVIRT, kvRename, kvRestore } from './testing/synthetic-rules.ts';
import { rewriteWatchEvent } from './watch.ts';

const STORED_VM: ObjectType = { kind: 'InternalVirtualizationVirtualMachine', apiVersion: `${IG}/v1` };

/** The KubeVirt rules and one extra exclude: VMs named 'hidden'. */
const withExclude: RewriteContext = restoreContext(
  buildRuleIndex({
    ...KUBEVIRT_REWRITE_RULES,
    excludes: [{ kinds: ['InternalVirtualizationVirtualMachine'], matchNames: ['hidden'] }],
  }),
);

const COLUMNS = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0 },
  { name: 'Age', type: 'date', description: 'creationTimestamp', priority: 0 },
  { name: 'Status', type: 'string', description: 'Human Readable Status', priority: 0 },
  { name: 'Ready', type: 'string', description: 'Ready', priority: 0 },
];

/** VM metadata with the names of one side: label, annotation and finalizer keys, owner, managedFields. */
function vmMeta(name: string, side: 'stored' | 'client'): JsonRecord {
  const p = side === 'stored' ? INT : 'kubevirt.io';
  const av = side === 'stored' ? `${IG}/v1` : 'kubevirt.io/v1';
  const poolAv = side === 'stored' ? `pool.${IG}/v1alpha1` : 'pool.kubevirt.io/v1alpha1';
  return {
    name,
    namespace: 'ns',
    resourceVersion: '7',
    labels: { [`${p}/vm`]: name, app: name },
    annotations: { [`${p}/latest-observed-api-version`]: 'v1' },
    finalizers: [`${p}/virtualMachineControllerFinalize`],
    ownerReferences: [
      {
        apiVersion: poolAv,
        kind: side === 'stored' ? 'InternalVirtualizationVirtualMachinePool' : 'VirtualMachinePool',
        name: 'pool',
        uid: 'u1',
      },
    ],
    managedFields: [
      { apiVersion: av, manager: 'virt-controller', operation: 'Update', fieldsType: 'FieldsV1' },
    ],
  };
}

/** includeObject=Metadata (the default): PartialObjectMetadata keeps its own kind on both sides. */
const partial = (name: string, side: 'stored' | 'client', v = 'v1'): JsonRecord => ({
  kind: 'PartialObjectMetadata',
  apiVersion: `meta.k8s.io/${v}`,
  metadata: vmMeta(name, side),
});

/** includeObject=Object: the whole VM. */
const whole = (name: string, side: 'stored' | 'client'): JsonRecord => ({
  kind: side === 'stored' ? 'InternalVirtualizationVirtualMachine' : 'VirtualMachine',
  apiVersion: side === 'stored' ? `${IG}/v1` : 'kubevirt.io/v1',
  metadata: vmMeta(name, side),
  spec: { runStrategy: 'Always' },
  status: { printableStatus: 'Running' },
});

const row = (name: string, object?: JsonRecord): JsonRecord => ({
  cells: [name, '3m', 'Running', 'True'],
  ...(object !== undefined && { object }),
});

function table(rows: JsonRecord[], v = 'v1'): JsonRecord {
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${v}`,
    metadata: { resourceVersion: '42', continue: 'next-page' },
    columnDefinitions: COLUMNS,
    rows,
  };
}

describe('restoreTable', () => {
  it.each<[string, JsonRecord, JsonRecord, RewriteContext?]>([
    [
      'VM list, PartialObjectMetadata rows (includeObject=Metadata)',
      table([row('a', partial('a', 'stored')), row('b', partial('b', 'stored'))]),
      table([row('a', partial('a', 'client')), row('b', partial('b', 'client'))]),
    ],
    [
      'one VM, the whole object (includeObject=Object)',
      table([row('a', whole('a', 'stored'))]),
      table([row('a', whole('a', 'client'))]),
    ],
    ['rows without objects (includeObject=None)', table([row('a'), row('b')]), table([row('a'), row('b')])],
    [
      'a row of an excluded object is left out (extra exclude rule)',
      table([row('a', partial('a', 'stored')), row('hidden', partial('hidden', 'stored'))]),
      table([row('a', partial('a', 'client'))]),
      withExclude,
    ],
    [
      'a row holding a real kubevirt.io VM is left out (original kinds are never shown)',
      table([row('real', whole('real', 'client')), row('a', whole('a', 'stored'))]),
      table([row('a', whole('a', 'client'))]),
    ],
    [
      'meta.k8s.io/v1beta1',
      table([row('a', partial('a', 'stored', 'v1beta1'))], 'v1beta1'),
      table([row('a', partial('a', 'client', 'v1beta1'))], 'v1beta1'),
    ],
  ])('%s', (_name, input, want, ctx = kvRestore) => {
    const frozen = deepFreeze(structuredClone(input));
    const out = restoreTable(frozen, ctx, STORED_VM);
    expect(out).toEqual(want);
    // Column definitions and the Table's own metadata are never rewritten.
    expect(out['columnDefinitions']).toBe(frozen['columnDefinitions']);
    expect(out['metadata']).toBe(frozen['metadata']);
  });

  it('gives back the very same Table when no row changes', () => {
    const t = deepFreeze(
      table([row('a'), row('b', { kind: 'PartialObjectMetadata', metadata: { name: 'b' } })]),
    );
    expect(restoreTable(t, kvRestore, STORED_VM)).toBe(t);
  });

  it('leaves a Table alone on rename (clients never send one)', () => {
    const t = deepFreeze(table([row('a', partial('a', 'client'))]));
    expect(restoreTable(t, kvRename, STORED_VM)).toBe(t);
  });

  it('restores metadata without a stored kind too (no rules: managedFields versions stay)', () => {
    const out = restoreTable(deepFreeze(table([row('p', partial('p', 'stored'))])), kvRestore, {
      apiVersion: 'v1',
    });
    const meta = ((out['rows'] as JsonRecord[])[0]?.['object'] as JsonRecord)['metadata'] as JsonRecord;
    expect(meta['labels']).toEqual({ 'kubevirt.io/vm': 'p', app: 'p' });
    expect(meta['managedFields']).toEqual(vmMeta('p', 'stored')['managedFields']);
  });
});

describe('Tables in whole bodies and watch events', () => {
  it('rewriteDocument restores a Table with the stored type it is given', () => {
    const input = deepFreeze(table([row('a', partial('a', 'stored'))]));
    expect(rewriteDocument(input, kvRestore, STORED_VM)).toEqual(table([row('a', partial('a', 'client'))]));
  });

  it.each(['ADDED', 'MODIFIED', 'DELETED'])('a %s event holding a Table (kubectl get -w)', (type) => {
    // The first event of a Table watch carries the column definitions, later ones only rows.
    const ev = deepFreeze({
      type,
      object: { ...table([row('a', partial('a', 'stored'))]), columnDefinitions: null },
    });
    expect(rewriteWatchEvent(ev, kvRestore, STORED_VM)).toEqual({
      type,
      object: { ...table([row('a', partial('a', 'client'))]), columnDefinitions: null },
    });
  });

  it('drops the row of an excluded object from a watch event, not the event', () => {
    const ev = deepFreeze({ type: 'ADDED', object: table([row('hidden', partial('hidden', 'stored'))]) });
    expect(rewriteWatchEvent(ev, withExclude, STORED_VM)).toEqual({ type: 'ADDED', object: table([]) });
  });

  it('an ERROR event stays a Status', () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' };
    const ev = deepFreeze({ type: 'ERROR', object: status });
    expect(rewriteWatchEvent(ev, kvRestore, STORED_VM)).toBe(ev);
  });
});

describe('isTable and storedTypeOf', () => {
  it.each<[JsonRecord, boolean]>([
    [{ kind: 'Table', apiVersion: 'meta.k8s.io/v1' }, true],
    [{ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' }, true],
    [{ kind: 'Table', apiVersion: 'example.io/v1' }, false],
    [{ kind: 'TableList', apiVersion: 'meta.k8s.io/v1' }, false],
  ])('isTable(%j) is %s', (doc, want) => {
    expect(isTable(doc)).toBe(want);
  });

  it.each<[string, ObjectType]>([
    ['/apis/kubevirt.io/v1/namespaces/ns/virtualmachines', STORED_VM],
    ['/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/a', STORED_VM],
    ['/apis/kubevirt.io/v1/watch/virtualmachines', STORED_VM],
    [`/apis/${IG}/v1/namespaces/ns/internalvirtualizationvirtualmachines`, STORED_VM],
    [
      '/apis/kubevirt.io/v1/virtualmachineinstances?watch=1',
      { kind: 'InternalVirtualizationVirtualMachineInstance', apiVersion: `${IG}/v1` },
    ],
    ['/api/v1/namespaces/ns/pods', { kind: undefined, apiVersion: 'v1' }],
    ['/apis/apps/v1/deployments', { kind: undefined, apiVersion: 'apps/v1' }],
  ])('%s is stored as %j', (url, want) => {
    expect(storedTypeOf(parseTarget(url, KUBEVIRT), KUBEVIRT)).toEqual(want);
  });
});
