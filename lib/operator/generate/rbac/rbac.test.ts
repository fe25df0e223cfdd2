import { describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import type { Rendered } from '../../config/install-config.ts';
import { goldens } from '../../../kernel/testing/golden.ts';
import { installConfig } from '../../testing/config.ts';
import { SERVICE_ACCOUNT } from '../names.ts';
import { componentRbac } from './components.ts';
import { KUBEVIRT_API } from './kubevirt/apiserver.ts';
import { KUBEVIRT_CLUSTER_ROLES } from './kubevirt/cluster.ts';
import { KUBEVIRT_CONTROLLER } from './kubevirt/controller.ts';
import { KUBEVIRT_HANDLER } from './kubevirt/handler.ts';
import { KUBEVIRT_OPERATOR } from './kubevirt/operator.ts';
import { operatorRbac } from './operator.ts';
import { renamed, type PolicyRule } from './policy.ts';
import { fmtRule } from './testing/rules.ts';

const golden = goldens(import.meta.url);
const yamlOf = (objects: readonly Rendered[]): string =>
  objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');

describe('goldens', () => {
  it.each([
    ['component-rbac.yaml', componentRbac],
    ['operator-rbac.yaml', operatorRbac],
  ])('%s', (file, generate) => {
    golden.expectText(file, yamlOf(generate(installConfig())));
  });

  it('follow the install namespace', () => {
    const objects = [
      ...componentRbac(installConfig({ namespace: 'kv' })),
      ...operatorRbac(installConfig({ namespace: 'kv' })),
    ];
    const namespaces = objects.flatMap((o) => [
      ...(o.metadata.namespace === undefined ? [] : [o.metadata.namespace]),
      ...((o['subjects'] as { namespace?: string }[] | undefined) ?? []).flatMap((s) => s.namespace ?? []),
    ]);
    expect(new Set(namespaces)).toEqual(new Set(['kv']));
  });
});

const all = [...componentRbac(installConfig()), ...operatorRbac(installConfig())];
const rulesOfAll = (kind: string): PolicyRule[] =>
  all.filter((o) => o.kind === kind).flatMap((o) => o['rules'] as PolicyRule[]);

describe('wildcards', () => {
  const kubevirt = [
    ...[KUBEVIRT_API, KUBEVIRT_CONTROLLER, KUBEVIRT_HANDLER, KUBEVIRT_OPERATOR].flatMap((c) => [
      ...c.cluster,
      ...c.namespaced,
    ]),
    ...KUBEVIRT_CLUSTER_ROLES.flatMap((r) => r.rules),
  ];
  const hasWildcard = (r: PolicyRule): boolean =>
    [...(r.apiGroups ?? []), ...(r.resources ?? []), ...r.verbs].some((x) => x.includes('*'));

  it('only where KubeVirt has the same rule', () => {
    const theirs = new Set(kubevirt.filter(hasWildcard).map((r) => fmtRule(renamed(r))));
    const ours = [...rulesOfAll('ClusterRole'), ...rulesOfAll('Role')].filter(hasWildcard).map(fmtRule);
    expect(ours.filter((r) => !theirs.has(r))).toEqual([]);
    expect(ours.length).toBeGreaterThan(0);
  });
});

interface Binding {
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects: { kind: string; name: string; namespace?: string }[];
}

describe('bindings', () => {
  const bindings = all.filter((o) => o.kind.endsWith('Binding'));
  const exists = (kind: string, name: string, namespace?: string): boolean =>
    all.some((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === namespace);
  /** ClusterRoles every cluster has, that the install binds to. */
  const BUILT_IN = new Set(['system:auth-delegator']);

  it.each(bindings.map((b) => [`${b.kind} ${b.metadata.name ?? ''}`, b] as const))(
    '%s points at a role and at subjects of the install',
    (_name, b) => {
      const { roleRef, subjects } = { roleRef: b['roleRef'], subjects: b['subjects'] } as Binding;
      expect(roleRef.apiGroup).toBe('rbac.authorization.k8s.io');
      const namespace = roleRef.kind === 'Role' ? b.metadata.namespace : undefined;
      expect(BUILT_IN.has(roleRef.name) || exists(roleRef.kind, roleRef.name, namespace)).toBe(true);
      for (const s of subjects) {
        if (s.kind === 'Group') expect(s.name).toBe('system:authenticated');
        else expect(exists('ServiceAccount', s.name, s.namespace)).toBe(true);
      }
    },
  );

  it('give each ServiceAccount its ClusterRole and Role of the same name', () => {
    for (const name of Object.values(SERVICE_ACCOUNT)) {
      for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
        const b = all.find((o) => o.kind === kind && o.metadata.name === name);
        expect({ name, kind, roleRef: (b?.['roleRef'] as Binding['roleRef'] | undefined)?.name }).toEqual({
          name,
          kind,
          roleRef: name,
        });
      }
    }
  });
});
