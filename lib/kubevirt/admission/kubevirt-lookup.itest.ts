/**
 * The KubeVirt CR update webhook with its lookup over a real kube-apiserver: a changed workloads placement is
 * tried as a dry-run DaemonSet in the CR's namespace, so a placement the API server accepts is admitted and a
 * bad toleration is denied with the API server's message naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testCluster, type TestCluster } from '../../../testenv/cluster.ts';
import { rewritingClient } from '../../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../rename/index.ts';
import { kubevirtCr, withSpec } from '../validation/testing/kubevirts.ts';
import { WEBHOOKS } from '../webhooks.ts';
import { handleAdmission, type Admitter } from './admit.ts';
import { kubevirtAdmitters } from './kubevirt-admitters.ts';
import { clusterKubeVirtLookup } from './kubevirt-lookup.ts';
import type { AdmissionReviewResponse } from './review.ts';

let cluster: TestCluster;
let table: Record<string, Admitter>;

beforeAll(async () => {
  cluster = await testCluster('kv-admission', { userAgent: 'kubevirt-ts/admission-itest' });
  const client = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  table = kubevirtAdmitters(clusterKubeVirtLookup({ client, direct: cluster.direct }));
}, 60_000);

afterAll(async () => {
  await cluster.close();
}, 60_000);

describe('the KubeVirt CR update webhook against kube-apiserver', () => {
  it('dry-runs a changed workloads placement: a bad toleration is denied', async () => {
    const update = async (workloads: unknown): Promise<AdmissionReviewResponse['response']> => {
      const kv = (change: Parameters<typeof kubevirtCr>[0]): unknown =>
        kubevirtCr((k) => (k.metadata.namespace = cluster.ns), change);
      const a = await handleAdmission(
        table,
        WEBHOOKS.kubevirtValidateUpdate.path,
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: {
            uid: 'kv1',
            operation: 'UPDATE',
            userInfo: { username: 'admin' },
            resource: { group: 'kubevirt.io', version: 'v1', resource: 'kubevirts' },
            object: kv(withSpec('workloads', workloads)),
            oldObject: kv(() => undefined),
          },
        }),
      );
      if (a.code !== 200) throw new Error(`answered ${a.code}`);
      return a.body.response;
    };
    const ok = await update({ nodePlacement: { nodeSelector: { 'kubernetes.io/os': 'linux' } } });
    expect(ok).toEqual({ uid: 'kv1', allowed: true });
    const bad = await update({ nodePlacement: { tolerations: [{ key: 'a', operator: 'Bogus' }] } });
    expect(bad).toMatchObject({ uid: 'kv1', allowed: false, status: { code: 422, reason: 'Invalid' } });
    const message = bad.status?.message ?? '';
    expect(message).toContain('DaemonSet.apps "placement-validation-webhook" is invalid');
    expect(message).toContain('spec.template.spec.tolerations[0].operator');
  }, 30_000);
});
