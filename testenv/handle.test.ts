import { afterEach, describe, expect, it } from '@jest/globals';
import { newNamespaceName, STATE_ENV, testEnv } from './handle.ts';

describe('newNamespaceName', () => {
  it.each([
    ['testenv', /^testenv-[0-9a-f]{8}$/],
    ['My_Test Suite', /^my-test-suite-[0-9a-f]{8}$/],
    ['--x--', /^x-[0-9a-f]{8}$/],
    ['', /^test-[0-9a-f]{8}$/],
    ['a'.repeat(80), /^a{54}-[0-9a-f]{8}$/],
  ])('%j gives a DNS-1123 label', (prefix, want) => {
    const name = newNamespaceName(prefix);
    expect(name).toMatch(want);
    expect(name.length).toBeLessThanOrEqual(63);
  });

  it('gives a different name on every call', () => {
    expect(newNamespaceName('x')).not.toBe(newNamespaceName('x'));
  });
});

describe('testEnv', () => {
  const saved = { kube: process.env['KUBECONFIG'], state: process.env[STATE_ENV] };
  afterEach(() => {
    for (const [k, v] of [
      ['KUBECONFIG', saved.kube],
      [STATE_ENV, saved.state],
    ] as const) {
      if (v === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = v;
    }
  });

  it('fails clearly without KUBECONFIG', () => {
    Reflect.deleteProperty(process.env, 'KUBECONFIG');
    expect(() => testEnv()).toThrow(/KUBECONFIG is not set/);
  });

  it('refuses the destructive helpers against an external cluster', async () => {
    process.env['KUBECONFIG'] = '/somewhere/kubeconfig';
    Reflect.deleteProperty(process.env, STATE_ENV);
    const env = testEnv();
    expect(env).toMatchObject({ kubeconfigPath: '/somewhere/kubeconfig', local: false });
    await expect(env.killApiServer()).rejects.toThrow(/killApiServer needs the local test control plane/);
    await expect(env.startApiServer()).rejects.toMatchObject({ code: 'KV_ERR_CONFIG' });
    await expect(env.compactEtcd()).rejects.toMatchObject({ code: 'KV_ERR_CONFIG' });
  });

  it('is local when the state file is given', () => {
    process.env['KUBECONFIG'] = '/x/kubeconfig';
    process.env[STATE_ENV] = '/x/state.json';
    expect(testEnv().local).toBe(true);
  });
});
