/**
 * The complete KubeVirt rule set of the Deckhouse virtualization module
 * (deckhouse/virtualization src/kubevirt-rules/kubevirt_rules.go, KubevirtRewriteRules).
 */
import { INTERNAL_GROUP, KUBEVIRT_API_GROUPS } from './kubevirt-groups.ts';
import { KUBEVIRT_WEBHOOKS } from './kubevirt-webhooks.ts';
import type { MetadataReplaceRule, RewriteRules } from './types.ts';

const NODE_GROUP = 'node.virtualization.deckhouse.io';
const ROOT_GROUP = 'virtualization.deckhouse.io';

/** `<name>.kubevirt.io` → `<name>.kubevirt.internal.virtualization.deckhouse.io` ('' for kubevirt.io itself). */
function internal(name: string): MetadataReplaceRule {
  const original = name === '' ? 'kubevirt.io' : `${name}.kubevirt.io`;
  const renamed = name === '' ? `kubevirt.${INTERNAL_GROUP}` : `${name}.kubevirt.${INTERNAL_GROUP}`;
  return { original, renamed };
}

/** Node-feature labels: `<name>.node.kubevirt.io` → `<name>.node.virtualization.deckhouse.io` (not "internal"). */
function nodeFeature(name: string): MetadataReplaceRule {
  return { original: `${name}.node.kubevirt.io`, renamed: `${name}.${NODE_GROUP}` };
}

const MANAGED_BY = 'app.kubernetes.io/managed-by';

export const KUBEVIRT_REWRITE_RULES: RewriteRules = {
  kindPrefix: 'InternalVirtualization',
  resourceTypePrefix: 'internalvirtualization',
  shortNamePrefix: 'intvirt',
  categories: ['intvirt'],
  groups: KUBEVIRT_API_GROUPS,
  webhooks: KUBEVIRT_WEBHOOKS,
  labels: {
    names: [
      internal(''),
      internal('operator'),
      internal('prometheus'),
      { original: 'node-labeller.kubevirt.io/skip-node', renamed: `node-labeller.${ROOT_GROUP}/skip-node` },
      {
        original: 'node-labeller.kubevirt.io/obsolete-host-model',
        renamed: `node-labeller.${INTERNAL_GROUP}/obsolete-host-model`,
      },
      {
        original: MANAGED_BY,
        originalValue: 'virt-operator',
        renamed: MANAGED_BY,
        renamedValue: 'virt-operator-internal-virtualization',
      },
      {
        original: MANAGED_BY,
        originalValue: 'kubevirt-operator',
        renamed: MANAGED_BY,
        renamedValue: 'kubevirt-operator-internal-virtualization',
      },
    ],
    prefixes: [
      internal(''),
      internal('prometheus'),
      internal('operator'),
      internal('vm'),
      nodeFeature('cpu-feature'),
      nodeFeature('cpu-model-migration'),
      nodeFeature('cpu-model'),
      nodeFeature('cpu-timer'),
      nodeFeature('cpu-vendor'),
      nodeFeature('scheduling'),
      nodeFeature('host-model-cpu'),
      nodeFeature('host-model-required-features'),
      nodeFeature('hyperv'),
      nodeFeature('machine-type'),
    ],
  },
  annotations: {
    names: [],
    prefixes: [internal(''), internal('certificates')],
  },
  finalizers: {
    names: [],
    prefixes: [internal('')],
  },
  excludes: [],
};
