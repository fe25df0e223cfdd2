/**
 * The KubeVirt CR's webhooks on the cluster: registered by URL at the rewriter's webhook proxy (update and delete,
 * as Deckhouse proxies them), served by the api until the operator role exists. An update setting infra replicas
 * to 0 is refused with KubeVirt's message, and the CR can be deleted while no uninstall strategy blocks it.
 */
import { describe, expect, it } from '@jest/globals';
import { KUBEVIRTS } from '../../lib/api/index.ts';
import { scenario } from './stack.ts';

const s = scenario('e2e-kubevirt-cr');

describe('the KubeVirt CR webhooks', () => {
  it('refuse an update KubeVirt refuses, and let the CR be deleted', async () => {
    await s.clients.kv.create(KUBEVIRTS, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { name: 'config', namespace: s.ns },
      spec: {},
    });
    const refused = await s.clients.kv
      .patch(KUBEVIRTS, 'config', { spec: { infra: { replicas: 0 } } }, { namespace: s.ns, type: 'merge' })
      .then(
        () => undefined,
        (e: unknown) => e as { status?: { code?: number; message?: string } },
      );
    expect(refused?.status?.code).toBe(422);
    expect(refused?.status?.message).toContain("infra replica count can't be 0");
    await s.clients.kv.delete(KUBEVIRTS, 'config', { namespace: s.ns });
  }, 120_000);
});
