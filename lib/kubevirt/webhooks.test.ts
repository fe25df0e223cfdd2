import { describe, expect, it } from '@jest/globals';
import { KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { registeredWebhooks, WEBHOOKS, webhooksServedBy, type Webhook } from './webhooks.ts';

const all: readonly Webhook[] = Object.values(WEBHOOKS);

describe('the webhook table', () => {
  it('names every webhook once, and every path once but the eviction interceptors’ shared one', () => {
    expect(new Set(all.map((w) => w.path)).size).toBe(all.length - 1);
    expect(new Set(all.map((w) => w.name)).size).toBe(all.length);
    expect(all.filter((w) => w.path === '/pod-eviction-validate').map((w) => w.name)).toEqual([
      'virt-launcher-eviction-interceptor.kubevirt.io',
      'hotplug-pod-eviction-interceptor.kubevirt.io',
    ]);
  });

  it('registers each kind in the order of its configuration', () => {
    expect(registeredWebhooks('validating').map((w) => w.path)).toEqual([
      '/pod-eviction-validate',
      '/pod-eviction-validate',
      '/virtualmachines-validate',
      '/virtualmachineinstances-validate-create',
      '/virtualmachineinstances-validate-update',
      '/migration-validate-create',
      '/migration-validate-update',
      '/kubevirt-validate-create',
      '/kubevirt-validate-update',
      '/kubevirt-validate-delete',
    ]);
    expect(registeredWebhooks('mutating').map((w) => w.path)).toEqual([
      '/virtualmachines-mutate',
      '/virtualmachineinstances-mutate',
      '/migration-mutate-create',
    ]);
  });

  it('gives the KubeVirt CR’s webhooks to the operator, as KubeVirt does, and every other to the api', () => {
    const paths = (w: readonly Webhook[]): string[] => w.map((h) => h.path);
    expect(paths(webhooksServedBy('operator'))).toEqual([
      '/kubevirt-validate-create',
      '/kubevirt-validate-update',
      '/kubevirt-validate-delete',
    ]);
    expect(webhooksServedBy('api').every((w) => w.resource.resource !== 'kubevirts')).toBe(true);
    expect(webhooksServedBy('api').length + 3).toBe(all.length);
  });

  it.each(
    registeredWebhooks('validating')
      .concat(registeredWebhooks('mutating'))
      .filter((w) => w.server === 'api'),
  )('$path is proxied by the rewriter for the resource it admits', (w) => {
    const { group, resource } = w.resource;
    expect(KUBEVIRT_REWRITE_RULES.webhooks[w.path]).toEqual({
      path: w.path,
      group,
      resource: w.subresource === undefined ? resource : `${resource}/${w.subresource}`,
    });
  });
});
