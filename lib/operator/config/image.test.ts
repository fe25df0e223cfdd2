import { describe, expect, it } from '@jest/globals';
import { targetDeployment } from './deployment.ts';
import { formatImageRef, parseImageRef, type ImageRef } from './image.ts';
import { installConfig } from '../testing/config.ts';

const DIGEST = `sha256:${'0f'.repeat(32)}`;

describe('parseImageRef', () => {
  it.each<[string, ImageRef | undefined]>([
    ['kubevirt-ts', { registry: '', name: 'kubevirt-ts' }],
    ['registry.example/kubevirt-ts:v1', { registry: 'registry.example', name: 'kubevirt-ts', tag: 'v1' }],
    ['host:5000/a/b/kubevirt-ts:v1', { registry: 'host:5000/a/b', name: 'kubevirt-ts', tag: 'v1' }],
    ['host:5000/kubevirt-ts', { registry: 'host:5000', name: 'kubevirt-ts' }],
    [`r.example/kv@${DIGEST}`, { registry: 'r.example', name: 'kv', digest: DIGEST }],
    [`r.example/kv:v2@${DIGEST}`, { registry: 'r.example', name: 'kv', tag: 'v2', digest: DIGEST }],
    ['r.example/KV:v1', undefined],
    ['r.example/kv:', undefined],
    ['r.example/kv:a:b', undefined],
    ['r.example//kv', undefined],
    ['r.example/kv@sha256:short', undefined],
    [`r.example/kv@${DIGEST}@${DIGEST}`, undefined],
  ])('%s', (ref, parts) => {
    expect(parseImageRef(ref)).toEqual(parts);
    if (parts !== undefined) expect(formatImageRef(parts)).toBe(ref);
  });
});

describe('targetDeployment', () => {
  const base = targetDeployment(installConfig());

  it('names the version and the registry, and its settings with the id', () => {
    expect(base).toMatchObject({ version: 'v0.1.0', registry: 'registry.example' });
    expect(JSON.parse(base.config)).toMatchObject({ id: base.id, namespace: 'd8-virtualization' });
  });

  it.each<[string, Parameters<typeof installConfig>[0], boolean]>([
    ['the same settings', {}, false],
    ['other flags', { flags: { 'virt-api': { v: '4' }, 'virt-controller': {}, 'virt-handler': {} } }, false],
    ['another image', { image: 'registry.example/kubevirt-ts:v0.2.0', version: 'v0.2.0' }, true],
    ['another pull policy', { imagePullPolicy: 'Always' }, true],
    ['another launcher image', { launcherImage: 'other/launcher:v1' }, true],
  ])('%s changes the id: %s', (_name, overrides, changed) => {
    expect(targetDeployment(installConfig(overrides)).id !== base.id).toBe(changed);
  });
});
