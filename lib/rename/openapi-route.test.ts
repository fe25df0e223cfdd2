import { describe, expect, it } from '@jest/globals';
import { openApiRoute, restoreOpenApiUrl } from './openapi-route.ts';
import { kvRestore } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';

describe('openApiRoute', () => {
  it.each([
    ['/openapi/v3', { kind: 'index' }],
    ['/openapi/v3/', { kind: 'index' }],
    ['/openapi/v2', { kind: 'v2' }],
    ['/openapi/v3/apis/kubevirt.io/v1', { kind: 'group-version', upstreamPath: `/openapi/v3/apis/${IG}/v1` }],
    [
      '/openapi/v3/apis/migrations.kubevirt.io/v1alpha1',
      { kind: 'group-version', upstreamPath: `/openapi/v3/apis/migrations.${IG}/v1alpha1` },
    ],
    [`/openapi/v3/apis/${IG}/v1`, { kind: 'hidden' }],
    [`/openapi/v3/apis/pool.${IG}/v1alpha1`, { kind: 'hidden' }],
    ['/openapi/v3/apis/apps/v1', undefined],
    ['/openapi/v3/apis/kubevirt.io/../../../api/v1/secrets', undefined],
    ['/openapi/v3/apis/kubevirt.io/v1/%2E%2e/x', undefined],
    ['/openapi/v3/api/v1', undefined],
    ['/apis/kubevirt.io/v1', undefined],
    ['/version', undefined],
  ])('%s', (path, want) => {
    expect(openApiRoute(path, kvRestore.rules)).toEqual(want);
  });
});

describe('restoreOpenApiUrl', () => {
  it.each([
    [`/openapi/v3/apis/${IG}/v1?hash=AB12`, '/openapi/v3/apis/kubevirt.io/v1?hash=AB12'],
    [`/openapi/v3/apis/clone.${IG}/v1alpha1?hash=1`, '/openapi/v3/apis/clone.kubevirt.io/v1alpha1?hash=1'],
    [
      `https://10.0.0.1:6443/openapi/v3/apis/${IG}/v1?hash=9`,
      'https://10.0.0.1:6443/openapi/v3/apis/kubevirt.io/v1?hash=9',
    ],
    [`/openapi/v3/apis/${IG}`, '/openapi/v3/apis/kubevirt.io'],
    ['/openapi/v3/apis/apps/v1?hash=1', '/openapi/v3/apis/apps/v1?hash=1'],
    ['/openapi/v3/api/v1?hash=1', '/openapi/v3/api/v1?hash=1'],
  ])('%s → %s', (url, want) => {
    expect(restoreOpenApiUrl(url, kvRestore)).toBe(want);
  });
});
