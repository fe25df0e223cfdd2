/**
 * A KubeVirt CR as the KubeVirt CR webhooks receive it (kubevirt.io names), from the kubevirtSpec() fixture,
 * with a change applied to a copy. Configuration fields the CRD keeps untyped are set through `config(kv)`.
 */
import type { KubeVirt } from '../../v1/objects.ts';
import { kubevirtSpec } from '../../testing/fixtures.ts';

export type KubeVirtChange = (kv: KubeVirt) => void;

export function kubevirtCr(...changes: KubeVirtChange[]): KubeVirt {
  const kv: KubeVirt = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'KubeVirt',
    metadata: { name: 'kubevirt', namespace: 'd8-virtualization', resourceVersion: '7' },
    spec: kubevirtSpec(),
    status: { phase: 'Deployed' },
  };
  for (const change of changes) change(kv);
  return kv;
}

/** spec.configuration as an untyped record, for the fields KubeVirt has and the typed CR leaves out. */
export const config = (kv: KubeVirt): Record<string, unknown> => (kv.spec.configuration ??= {});

/** Sets one untyped spec.configuration field. */
export const withConfig =
  (key: string, value: unknown): KubeVirtChange =>
  (kv) => {
    config(kv)[key] = value;
  };

/** Sets one untyped spec field (infra, workloads, certificateRotateStrategy, ...). */
export const withSpec =
  (
    key: 'infra' | 'workloads' | 'certificateRotateStrategy' | 'uninstallStrategy',
    value: unknown,
  ): KubeVirtChange =>
  (kv) => {
    (kv.spec as Record<string, unknown>)[key] = value;
  };
