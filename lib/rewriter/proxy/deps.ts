/** What the kube-api proxy's handlers share. */
import type { Logger } from '../../kernel/log/log.ts';
import type { RuleIndex } from '../../rename/rules/rule-index.ts';
import type { CredentialLess } from './identity.ts';
import type { RewriterMetrics } from './metrics.ts';
import type { Upstream } from './upstream.ts';

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface KubeApiDeps {
  readonly index: RuleIndex;
  readonly upstream: Upstream;
  readonly metrics: RewriterMetrics;
  readonly log: Logger;
  /** Request bodies above this get 413. */
  readonly maxBodyBytes: number;
  /** A request without credentials: refused with 401 (TCP), or sent as the rewriter (its unix socket). */
  readonly credentialLess: CredentialLess;
}
