/**
 * Naming rules for our metrics (kubevirt docs/observability/monitoring-guidelines.md and the kubevirt/monitoring
 * linter; Prometheus naming conventions): kubevirt_ prefix, snake_case, counters end in _total (or
 * _timestamp_seconds), only counters end in _total, base units (seconds, bytes) instead of ms/KiB/…,
 * a help text, and no *_up (that is a recording rule, not a process metric).
 */
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import { STANDARD_METRIC_PREFIXES } from './registry.ts';

export interface MetricNameViolation {
  name: string;
  rule:
    | 'prefix'
    | 'snake-case'
    | 'counter-suffix'
    | 'total-on-non-counter'
    | 'base-units'
    | 'help'
    | 'recording-rule';
  message: string;
}

const NON_BASE_UNITS = new Set([
  'ms',
  'msec',
  'millis',
  'milliseconds',
  'us',
  'usec',
  'microseconds',
  'ns',
  'nanoseconds',
  'minutes',
  'hours',
  'days',
  'kb',
  'kib',
  'kilobytes',
  'mb',
  'mib',
  'megabytes',
  'gb',
  'gib',
  'gigabytes',
  'bits',
  'percent',
]);

interface Described {
  name: string;
  help: string;
  counter: boolean;
}

interface RuleDef {
  rule: MetricNameViolation['rule'];
  message: string;
  bad: (m: Described) => boolean;
}

const RULES: readonly RuleDef[] = [
  {
    rule: 'prefix',
    message: 'name must start with kubevirt_',
    bad: (m): boolean => !m.name.startsWith('kubevirt_'),
  },
  {
    rule: 'snake-case',
    message: 'name must be lower snake_case',
    bad: (m): boolean => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(m.name),
  },
  {
    rule: 'counter-suffix',
    message: 'counter must end in _total or _timestamp_seconds',
    bad: (m): boolean => m.counter && !m.name.endsWith('_total') && !m.name.endsWith('_timestamp_seconds'),
  },
  {
    rule: 'total-on-non-counter',
    message: 'only counters end in _total',
    bad: (m): boolean => !m.counter && m.name.endsWith('_total'),
  },
  {
    rule: 'base-units',
    message: 'use base units (_seconds, _bytes, _ratio), not ms, KiB, percent and the like',
    bad: (m): boolean => m.name.split('_').some((t) => NON_BASE_UNITS.has(t)),
  },
  { rule: 'help', message: 'help text must not be empty', bad: (m): boolean => m.help.trim() === '' },
  {
    rule: 'recording-rule',
    message: '*_up is a Prometheus recording rule, not a process metric',
    bad: (m): boolean => m.name.endsWith('_up'),
  },
];

/** Every violation of the naming rules among the registry's metrics; standard client families are skipped. */
export function lintMetricNames(registry: Registry): MetricNameViolation[] {
  const out: MetricNameViolation[] = [];
  for (const metric of registry.getMetricsAsArray()) {
    if (STANDARD_METRIC_PREFIXES.some((p) => metric.name.startsWith(p))) continue;
    const m: Described = { name: metric.name, help: metric.help, counter: metric instanceof Counter };
    for (const r of RULES) if (r.bad(m)) out.push({ name: m.name, rule: r.rule, message: r.message });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name) || a.rule.localeCompare(b.rule));
}
