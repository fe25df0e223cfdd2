/**
 * The rewrite rule model: pure data describing how an "original" API (kubevirt.io and its sibling groups)
 * is stored under "renamed" names in the cluster (internal.virtualization.deckhouse.io and siblings).
 * Field names follow kube-api-rewriter's rule format (deckhouse/kube-api-rewriter pkg/rewriter/rules.go).
 */

/** 'rename': original → renamed (towards the API server). 'restore': renamed → original (back to the client). */
export type Direction = 'rename' | 'restore';

export interface GroupRule {
  /** Original group, e.g. 'kubevirt.io'. */
  readonly group: string;
  readonly versions: readonly string[];
  readonly preferredVersion: string;
  /** Renamed group, e.g. 'internal.virtualization.deckhouse.io'. */
  readonly renamed: string;
}

export interface ResourceRule {
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  /** Categories of the original resource (usually ['all']); renamed ones get RewriteRules.categories. */
  readonly categories: readonly string[];
  readonly versions: readonly string[];
  readonly preferredVersion: string;
}

export interface ApiGroupRule {
  readonly groupRule: GroupRule;
  readonly resources: readonly ResourceRule[];
}

/**
 * A metadata key rule. With originalValue/renamedValue it applies only to that exact key=value pair
 * (the value is renamed too); without, to the key alone (Names) or to a key prefix before '/' (Prefixes).
 */
export interface MetadataReplaceRule {
  readonly original: string;
  readonly renamed: string;
  readonly originalValue?: string;
  readonly renamedValue?: string;
}

export interface MetadataReplace {
  readonly names: readonly MetadataReplaceRule[];
  readonly prefixes: readonly MetadataReplaceRule[];
}

/**
 * A webhook served behind the webhook proxy. The map key is the path the API server calls; `path` is the path
 * the real webhook listens on (equal for KubeVirt). group/resource name what the webhook admits.
 */
export interface WebhookRule {
  readonly path: string;
  readonly group: string;
  /** One resource or several joined by ',' (e.g. '/status-validate'). */
  readonly resource: string;
}

/** Objects hidden from the client on restore. Every present condition must match. */
export interface ExcludeRule {
  readonly kinds?: readonly string[];
  readonly matchNames?: readonly string[];
  readonly matchLabels?: Readonly<Record<string, string>>;
}

export interface RewriteRules {
  /** VirtualMachine → InternalVirtualizationVirtualMachine. */
  readonly kindPrefix: string;
  /** virtualmachines → internalvirtualizationvirtualmachines. */
  readonly resourceTypePrefix: string;
  /** vm → intvirtvm. */
  readonly shortNamePrefix: string;
  /** Categories every renamed resource gets instead of its own (e.g. ['intvirt'] instead of ['all']). */
  readonly categories: readonly string[];
  readonly groups: readonly ApiGroupRule[];
  readonly webhooks: Readonly<Record<string, WebhookRule>>;
  readonly labels: MetadataReplace;
  readonly annotations: MetadataReplace;
  readonly finalizers: MetadataReplace;
  /** Extra excludes; all original kinds and list kinds are excluded implicitly. */
  readonly excludes: readonly ExcludeRule[];
}
