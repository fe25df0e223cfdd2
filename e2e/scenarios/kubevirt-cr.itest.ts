/**
 * The KubeVirt CR's webhooks on the cluster: registered by URL at the rewriter's webhook proxy (update and delete,
 * as Deckhouse proxies them), served by the api until the operator role exists. An update setting infra replicas
 * to 0 is refused with KubeVirt's message, and the CR can be deleted while no uninstall strategy blocks it. The
 * stack's rewriter lends its identity only on its socket: its kube-api port answers a request without
 * credentials 401, and the socket serves it as the roles' user.
 */
import { describe, expect, it } from '@jest/globals';
import { Agent, request } from 'undici';
import { KUBEVIRTS } from '../../lib/kubevirt/index.ts';
import { REWRITER_LISTEN, rewriterSocket } from '../local/host-roles.ts';
import { layout } from '../local/layout.ts';
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

describe("the stack's rewriter", () => {
  it('answers a request without credentials 401 on its port, and serves it on its socket', async () => {
    const path = `/apis/kubevirt.io/v1/namespaces/${s.ns}/kubevirts`;
    const viaPort = await request(`http://${REWRITER_LISTEN}${path}`);
    expect([viaPort.statusCode, ((await viaPort.body.json()) as { reason?: string }).reason]).toEqual([
      401,
      'Unauthorized',
    ]);
    const dispatcher = new Agent({ connect: { socketPath: rewriterSocket(layout(s.c.dir)) } });
    try {
      const viaSocket = await request(`http://localhost${path}`, { dispatcher });
      expect([viaSocket.statusCode, ((await viaSocket.body.json()) as { kind?: string }).kind]).toEqual([
        200,
        'KubeVirtList',
      ]);
    } finally {
      await dispatcher.destroy();
    }
  }, 60_000);
});
