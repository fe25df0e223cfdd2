/**
 * Probes and DNS of a VMI spec, fields our types keep as sent (KubeVirt vmi-create-admitter.go validateProbe,
 * appendStatusCauseForProbeNotAllowedWithNoPodNetworkPresent, validateDNSPolicy, validatePodDNSConfig, the
 * last copied by KubeVirt from Kubernetes with bare `nameservers`/`searchDomains`/`options` fields).
 */
import { isIP } from 'node:net';
import type { JsonObject } from '../schema/dsl.ts';
import { child, invalid, notSupported, required, type Causes } from './causes.ts';
import { isDns1123Subdomain } from './dns.ts';
import type { SpecRule } from './rule.ts';

const PROBE_HANDLERS = ['httpGet', 'tcpSocket', 'exec', 'guestAgentPing'] as const;
const DNS_POLICIES: readonly string[] = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None', ''];
const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 6;
const MAX_SEARCH_CHARS = 256;

const present = (o: JsonObject, key: string): boolean => o[key] !== undefined && o[key] !== null;

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

function probeCauses(probe: JsonObject | undefined, f: string): Causes {
  if (probe === undefined) return [];
  const handlers = PROBE_HANDLERS.filter((h) => present(probe, h)).length;
  const causes: Causes = [];
  if (handlers > 1) causes.push(invalid(f, `${f} must have exactly one probe type set`));
  if (handlers < 1) {
    const [tcp, exec, http] = ['tcpSocket', 'exec', 'httpGet'].map((h) => child(f, h));
    causes.push(required(f, `either ${tcp}, ${exec} or ${http} must be set if a ${f} is specified`));
  }
  return causes;
}

function podOnly(probe: JsonObject, f: string): Causes {
  return ['httpGet', 'tcpSocket']
    .filter((h) => present(probe, h))
    .map((h) => invalid(child(f, h), `${child(f, h)} is only allowed if the Pod Network is attached`));
}

/** validateProbe for both probes, then the pod-network checks (KubeVirt's order). */
export const probes: SpecRule = (spec, _ctx, path) => {
  const ready = child(path, 'readinessProbe');
  const live = child(path, 'livenessProbe');
  const podNetwork = (spec.networks ?? []).some((n) => n.pod !== undefined);
  const own = [...probeCauses(spec.readinessProbe, ready), ...probeCauses(spec.livenessProbe, live)];
  if (podNetwork) return own;
  const pod = [
    ...(spec.readinessProbe === undefined ? [] : podOnly(spec.readinessProbe, ready)),
    ...(spec.livenessProbe === undefined ? [] : podOnly(spec.livenessProbe, live)),
  ];
  return [...own, ...pod];
};

export const dnsPolicy: SpecRule = (spec, _ctx, path) => {
  const policy = spec.dnsPolicy ?? '';
  if (DNS_POLICIES.includes(policy)) return [];
  return [
    notSupported(
      child(path, 'dnsPolicy'),
      `DNSPolicy: ${policy} is not supported, valid values: [${DNS_POLICIES.join(' ')}]`,
    ),
  ];
};

function searchCauses(searches: readonly string[]): Causes {
  const causes: Causes = [];
  if (searches.length > MAX_SEARCH_PATHS) {
    causes.push(invalid('searchDomains', `must not have more than ${MAX_SEARCH_PATHS} search paths`));
  }
  if (searches.join(' ').length > MAX_SEARCH_CHARS) {
    causes.push(
      invalid(
        'searchDomains',
        `must not have more than ${MAX_SEARCH_CHARS} characters (including spaces) in the search list`,
      ),
    );
  }
  for (const s of searches) causes.push(...isDns1123Subdomain(s).map((m) => invalid('searchDomains', m)));
  return causes;
}

function nameserverCauses(nameservers: readonly string[]): Causes {
  const causes: Causes = [];
  if (nameservers.length > MAX_NAMESERVERS) {
    causes.push(
      invalid(
        'nameservers',
        `must not have more than ${MAX_NAMESERVERS} nameservers: [${nameservers.join(' ')}]`,
      ),
    );
  }
  for (const ns of nameservers) {
    if (isIP(ns) === 0) causes.push(invalid('nameservers', `must be valid IP address: ${ns}`));
  }
  return causes;
}

function optionCauses(options: unknown): Causes {
  return (Array.isArray(options) ? (options as unknown[]) : []).flatMap((o) => {
    const name = typeof o === 'object' && o !== null ? (o as JsonObject)['name'] : undefined;
    return typeof name === 'string' && name !== ''
      ? []
      : [invalid('options', 'Option.Name must not be empty')];
  });
}

export const dnsConfig: SpecRule = (spec, _ctx, path) => {
  const config = spec.dnsConfig;
  const nameservers = strings(config?.['nameservers']);
  if (spec.dnsPolicy === 'None' && config === undefined) {
    return [required(child(path, 'dnsConfig'), 'must provide `dnsConfig` when `dnsPolicy` is None')];
  }
  if (spec.dnsPolicy === 'None' && nameservers.length === 0) {
    return [required('nameservers', 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (config === undefined) return [];
  return [
    ...nameserverCauses(nameservers),
    ...searchCauses(strings(config['searches'])),
    ...optionCauses(config['options']),
  ];
};
