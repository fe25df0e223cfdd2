import { describe, expect, it } from '@jest/globals';
import { fieldIndex, labelIndex, namespaceIndex, objectKey, splitKey, type Indexer } from './index-funcs.ts';
import { Store } from './store.ts';
import { obj, type TestObject } from './testing/fake-client.ts';

const indexers: Record<string, Indexer<TestObject>> = {
  namespace: namespaceIndex,
  app: labelIndex('app'),
  node: fieldIndex('spec.nodeName'),
};

const names = (list: TestObject[]): string[] => list.map((o) => o.metadata.name ?? '').sort();

describe('objectKey / splitKey', () => {
  it.each([
    [{ metadata: { name: 'a', namespace: 'ns' } }, 'ns/a', { namespace: 'ns', name: 'a' }],
    [{ metadata: { name: 'node1' } }, 'node1', { namespace: '', name: 'node1' }],
  ])('%j → %s', (o, key, parts) => {
    expect(objectKey(o)).toBe(key);
    expect(splitKey(key)).toEqual(parts);
  });
});

describe('index functions', () => {
  it.each([
    ['namespace', namespaceIndex, obj('a', '1', { namespace: 'x' }), ['x']],
    ['namespace of cluster-scoped', namespaceIndex, { metadata: { name: 'n' } }, ['']],
    ['label present', labelIndex('app'), obj('a', '1', { labels: { app: 'web' } }), ['web']],
    ['label absent', labelIndex('app'), obj('a', '1'), []],
    ['field present', fieldIndex('spec.nodeName'), obj('a', '1', { nodeName: 'n1' }), ['n1']],
    ['field missing', fieldIndex('spec.nodeName'), obj('a', '1'), []],
    ['field not scalar', fieldIndex('metadata'), obj('a', '1'), []],
    ['numeric field', fieldIndex('metadata.generation'), { metadata: { name: 'a', generation: 3 } }, ['3']],
  ])('%s', (_name, fn: Indexer, o, want) => {
    expect(fn(o)).toEqual(want);
  });
});

describe('Store', () => {
  it('adds, gets, lists and deletes by key', () => {
    const s = new Store<TestObject>();
    s.add(obj('a', '1'));
    s.add(obj('b', '2', { namespace: 'other' }));
    expect(s.get('default/a')?.metadata.resourceVersion).toBe('1');
    expect(s.listKeys().sort()).toEqual(['default/a', 'other/b']);
    expect(s.size).toBe(2);
    expect(s.delete(obj('a', '9'))?.metadata.resourceVersion).toBe('1');
    expect(s.get('default/a')).toBeUndefined();
    expect(s.delete(obj('a', '9'))).toBeUndefined();
    expect(names(s.list())).toEqual(['b']);
  });

  it('keeps the namespace, label and nodeName indexes in step on add, update and delete', () => {
    const s = new Store<TestObject>({ indexers });
    s.add(obj('a', '1', { namespace: 'x', labels: { app: 'web' }, nodeName: 'n1' }));
    s.add(obj('b', '1', { namespace: 'x', labels: { app: 'db' }, nodeName: 'n1' }));
    s.add(obj('c', '1', { namespace: 'y', labels: { app: 'web' } }));
    expect(names(s.byIndex('namespace', 'x'))).toEqual(['a', 'b']);
    expect(names(s.byIndex('app', 'web'))).toEqual(['a', 'c']);
    expect(names(s.byIndex('node', 'n1'))).toEqual(['a', 'b']);

    s.update(obj('a', '2', { namespace: 'x', labels: { app: 'db' }, nodeName: 'n2' }));
    expect(names(s.byIndex('app', 'web'))).toEqual(['c']);
    expect(names(s.byIndex('app', 'db'))).toEqual(['a', 'b']);
    expect(names(s.byIndex('node', 'n1'))).toEqual(['b']);
    expect(names(s.byIndex('node', 'n2'))).toEqual(['a']);

    s.delete(obj('b', '3', { namespace: 'x' }));
    expect(names(s.byIndex('node', 'n1'))).toEqual([]);
    expect(s.indexValues('node')).toEqual(['n2']);
    expect(names(s.byIndex('namespace', 'x'))).toEqual(['a']);
  });

  it('replace swaps the content and the indexes and records the resourceVersion', () => {
    const s = new Store<TestObject>({ indexers });
    s.add(obj('a', '1', { nodeName: 'n1' }));
    s.replace([obj('b', '5', { nodeName: 'n2' })], '5');
    expect(s.listKeys()).toEqual(['default/b']);
    expect(s.byIndex('node', 'n1')).toEqual([]);
    expect(names(s.byIndex('node', 'n2'))).toEqual(['b']);
    expect(s.listResourceVersion).toBe('5');
  });

  it('throws for an unknown index', () => {
    expect(() => new Store().byIndex('nope', 'x')).toThrow('no index named nope');
  });

  it('with freeze, a caller mutating a cached object throws', () => {
    const s = new Store<TestObject>({ freeze: true });
    s.add(obj('a', '1', { labels: { app: 'web' } }));
    const got = s.get('default/a');
    if (!got) throw new Error('missing');
    expect(() => {
      (got.metadata.labels ?? {})['app'] = 'x';
    }).toThrow(TypeError);
    expect(s.get('default/a')?.metadata.labels).toEqual({ app: 'web' });
  });
});
