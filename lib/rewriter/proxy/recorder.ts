/**
 * One request's view of the rewriter metrics: its labels, byte counts, rewrites and the final outcome. The
 * `resource` label names only resources the rename rules or the core API know, so a client cannot grow the
 * label set by making up paths (Prometheus' advice on unbounded label values).
 */
import { joinKey, type RuleIndex } from '../../rename/rules/rule-index.ts';
import { REWRITTEN_RESOURCES } from '../../rename/target-rewrite.ts';
import { CRD_RESOURCE, type ApiTarget } from '../../rename/target.ts';
import type { BaseLabels, Decision, ProxyName, RewriterMetrics } from './metrics.ts';

export type Side = 'client' | 'target';
export type Operation = 'rename' | 'restore';

/** The resources of the core group, /api/v1 (kube-apiserver's legacy storage). */
const CORE_RESOURCES: ReadonlySet<string> = new Set([
  'bindings',
  'componentstatuses',
  'configmaps',
  'endpoints',
  'events',
  'limitranges',
  'namespaces',
  'nodes',
  'persistentvolumeclaims',
  'persistentvolumes',
  'pods',
  'podtemplates',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'serviceaccounts',
  'services',
]);

/** Every resource that does not take its own label value. */
const OTHER_RESOURCE = 'other';

/** The target's resource when the rules or the core API know it ('' when it names none), else 'other'. */
export function resourceLabel(target: ApiTarget, index: RuleIndex): string {
  const r = target.resource;
  if (r === '') return '';
  const key = joinKey(target.group, r);
  const known =
    target.type === 'core'
      ? CORE_RESOURCES.has(r)
      : index.resourceByOriginal.has(key) ||
        index.resourceByRenamed.has(key) ||
        REWRITTEN_RESOURCES.has(r) ||
        r === CRD_RESOURCE;
  return known ? r : OTHER_RESOURCE;
}

export function baseLabels(
  name: ProxyName,
  target: ApiTarget,
  method: string | undefined,
  index: RuleIndex,
): BaseLabels {
  return {
    name,
    resource: resourceLabel(target, index),
    method: method ?? '',
    watch: target.isWatch ? 'true' : 'false',
  };
}

export class RequestRecorder {
  private status = '0';
  private failed = false;
  private readonly started = performance.now();
  private eventDuration: { observe(v: number): void } | undefined;

  constructor(
    private readonly m: RewriterMetrics,
    private readonly base: BaseLabels,
    readonly decision: Decision,
  ) {
    m.clientRequests.inc({ ...base, decision });
  }

  fromClient(bytes: number): void {
    if (bytes > 0) this.m.fromClientBytes.inc({ ...this.base, decision: this.decision }, bytes);
  }

  toTarget(bytes: number): void {
    if (bytes > 0) this.m.toTargetBytes.inc({ ...this.base, decision: this.decision }, bytes);
  }

  fromTarget(bytes: number): void {
    if (bytes > 0) this.m.fromTargetBytes.inc({ ...this.base, decision: this.decision }, bytes);
  }

  toClient(bytes: number): void {
    if (bytes > 0) this.m.toClientBytes.inc({ ...this.base, decision: this.decision }, bytes);
  }

  /** The target answered with this status (or, with error, could not be reached: status 0). */
  targetResponse(status: number, error = false): void {
    this.status = String(status);
    this.failed = error;
    this.m.targetResponses.inc({
      ...this.base,
      decision: this.decision,
      status: this.status,
      error: error ? '1' : '0',
    });
  }

  invalidJson(): void {
    this.m.targetResponseInvalidJson.inc({ ...this.base, status: this.status });
  }

  /** Runs one rewrite, timing and counting it; a throwing rewrite is counted with error=1 and rethrown. */
  rewrite<T>(side: Side, operation: Operation, fn: () => T): T {
    const started = performance.now();
    let error = '1';
    try {
      const out = fn();
      error = '0';
      return out;
    } finally {
      this.m.rewrites.inc({ ...this.base, side, operation, error });
      this.m.rewriteDuration.observe({ ...this.base, side, operation }, (performance.now() - started) / 1000);
    }
  }

  /** Counts time spent rewriting streamed parts, observed once per response by `observeRewrite`. */
  rewriteSeconds(side: Side, operation: Operation, seconds: number): void {
    this.m.rewrites.inc({ ...this.base, side, operation, error: '0' });
    this.m.rewriteDuration.observe({ ...this.base, side, operation }, seconds);
  }

  /** One watch event handled (the labelled child is looked up once per stream: events come by thousands). */
  watchEvent(seconds: number): void {
    this.eventDuration ??= this.m.requestHandlingDuration.labels({
      ...this.base,
      decision: this.decision,
      status: this.status,
    });
    this.eventDuration.observe(seconds);
  }

  /** The request is over: the proxy answered itself (status) or relayed the target's answer. */
  handled(status?: number, error?: boolean): void {
    const s = status === undefined ? this.status : String(status);
    const labels = { ...this.base, decision: this.decision, status: s };
    this.m.requestsHandled.inc({ ...labels, error: (error ?? this.failed) ? '1' : '0' });
    if (this.base.watch === 'false')
      this.m.requestHandlingDuration.observe(labels, (performance.now() - this.started) / 1000);
  }
}
