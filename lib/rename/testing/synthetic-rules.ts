/**
 * Test fixtures: the KubeVirt rule index and a small synthetic rule set shaped like kube-api-rewriter's Go tests
 * (rule_rewriter_test.go createTestRewriter): original.group.io → prefixed.resources.group.io, kind prefix
 * "Prefixed", resource prefix "prefixed", short-name prefix "p", category "prefixed".
 */
import { renameContext, restoreContext, type RewriteContext } from '../context.ts';
import { KUBEVIRT_REWRITE_RULES } from '../rules/kubevirt-rules.ts';
import { buildRuleIndex, type RuleIndex } from '../rules/rule-index.ts';
import type { ResourceRule, RewriteRules } from '../rules/types.ts';

function res(kind: string, shortNames: string[], categories: string[] = []): ResourceRule {
  return {
    kind,
    listKind: `${kind}List`,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    shortNames,
    categories,
    versions: ['v1', 'v1alpha1'],
    preferredVersion: 'v1',
  };
}

const SYNTHETIC_RULES: RewriteRules = {
  kindPrefix: 'Prefixed',
  resourceTypePrefix: 'prefixed',
  shortNamePrefix: 'p',
  categories: ['prefixed'],
  groups: [
    {
      groupRule: {
        group: 'original.group.io',
        versions: ['v1', 'v1alpha1'],
        preferredVersion: 'v1',
        renamed: 'prefixed.resources.group.io',
      },
      resources: [res('SomeResource', ['sr', 'srs'], ['all']), res('AnotherResource', ['ar'])],
    },
    {
      groupRule: {
        group: 'other.group.io',
        versions: ['v2alpha3'],
        preferredVersion: 'v2alpha3',
        renamed: 'other.prefixed.resources.group.io',
      },
      resources: [res('OtherResource', ['or'])],
    },
  ],
  webhooks: {
    '/validate-prefixed-resources-group-io-v1-prefixedsomeresource': {
      path: '/validate-original-group-io-v1-someresource',
      group: 'original.group.io',
      resource: 'someresources',
    },
  },
  labels: {
    prefixes: [
      { original: 'labelgroup.io', renamed: 'replacedlabelgroup.io' },
      { original: 'component.labelgroup.io', renamed: 'component.replacedlabelgroup.io' },
    ],
    names: [
      { original: 'labelgroup.io', renamed: 'replacedlabelgroup.io' },
      {
        original: 'labelgroup.io',
        originalValue: 'labelValueToRename',
        renamed: 'replacedlabelgroup.io',
        renamedValue: 'renamedLabelValue',
      },
    ],
  },
  annotations: {
    prefixes: [{ original: 'annogroup.io', renamed: 'replacedannogroup.io' }],
    names: [{ original: 'annogroup.io', renamed: 'replacedanno.io' }],
  },
  finalizers: { prefixes: [{ original: 'fingroup.io', renamed: 'replacedfingroup.io' }], names: [] },
  excludes: [
    { kinds: ['RoleBinding'], matchLabels: { labelName: 'labelValue' } },
    { kinds: ['Role'], matchNames: ['role1', 'role2'] },
  ],
};

export const KUBEVIRT: RuleIndex = buildRuleIndex(KUBEVIRT_REWRITE_RULES);
export const SYNTHETIC: RuleIndex = buildRuleIndex(SYNTHETIC_RULES);

export const kvRename: RewriteContext = renameContext(KUBEVIRT);
export const kvRestore: RewriteContext = restoreContext(KUBEVIRT);
export const synRename: RewriteContext = renameContext(SYNTHETIC);
export const synRestore: RewriteContext = restoreContext(SYNTHETIC);

/** Deep-freezes a fixture so a rewriter that mutates its input throws in the test. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
