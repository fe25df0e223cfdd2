import { describe, expect, it } from '@jest/globals';
import { CONFIG_MAPS, SECRETS } from '../names.ts';
import { apiDeployment } from './api.ts';
import type { Container } from './container.ts';
import { controllerDeployment } from './controller.ts';
import { handlerDaemonSet } from './handler.ts';
import { operatorDeployment } from './operator.ts';
import { services } from './services.ts';
import { VARIANTS, variant, type Variant } from './testing/variants.ts';
import type { PodTemplate } from './workload.ts';

/** Every Pod template the generators render for a variant, by workload name. */
function templates(v: Variant): [string, PodTemplate][] {
  const cfg = variant(v);
  const [operator] = operatorDeployment(cfg, { replicas: 2 });
  return [apiDeployment(cfg), controllerDeployment(cfg), handlerDaemonSet(cfg), operator].map((w) => [
    w.metadata.name ?? '',
    w.spec.template,
  ]);
}

function allContainers(t: PodTemplate): Container[] {
  return [...(t.spec.initContainers ?? []), ...t.spec.containers];
}

const CONTAINER_ROWS = VARIANTS.flatMap((v) =>
  templates(v).flatMap(([workload, t]) =>
    allContainers(t).map((c) => [`${v} ${workload}/${c.name}`, c] as const),
  ),
);
const POD_ROWS = VARIANTS.flatMap((v) =>
  templates(v).map(([workload, t]) => [`${v} ${workload}`, t] as const),
);

const under = (path: string, dir: string): boolean => path === dir || path.startsWith(`${dir}/`);

describe.each(CONTAINER_ROWS)('%s', (_, c) => {
  it('mounts every path its flags name', () => {
    const mounts = (c.volumeMounts ?? []).map((m) => m.mountPath);
    const paths = (c.args ?? []).filter((a) => a.startsWith('/'));
    expect(paths.filter((p) => !mounts.some((m) => under(p, m)))).toEqual([]);
  });

  it('passes each flag once', () => {
    const flags = (c.args ?? []).filter((a) => a.startsWith('-'));
    expect(flags.filter((f, i) => flags.indexOf(f) !== i)).toEqual([]);
  });

  it('probes a port it declares', () => {
    const declared = (c.ports ?? []).map((p) => p.name);
    const probed = [c.livenessProbe, c.readinessProbe].flatMap((p) =>
      p === undefined ? [] : [p.httpGet.port],
    );
    expect(probed.filter((p) => !declared.includes(p))).toEqual([]);
  });
});

describe.each(POD_ROWS)('%s', (_, t) => {
  const containers = allContainers(t);
  const volumes = t.spec.volumes ?? [];

  it('mounts only its volumes, and every one of them', () => {
    const mounted = new Set(containers.flatMap((c) => (c.volumeMounts ?? []).map((m) => m.name)));
    expect([...mounted].sort()).toEqual(volumes.map((v) => v.name).sort());
  });

  it('names only Secrets and ConfigMaps the install has', () => {
    const secrets: string[] = Object.values(SECRETS);
    const configMaps: string[] = Object.values(CONFIG_MAPS);
    for (const v of volumes) {
      if ('secret' in v) expect(secrets).toContain(v.secret.secretName);
      if ('configMap' in v) expect(configMaps).toContain(v.configMap.name);
    }
  });

  it('declares each port name once, of at most 15 characters', () => {
    const names = containers.flatMap((c) => (c.ports ?? []).map((p) => p.name));
    expect(names.filter((n, i) => names.indexOf(n) !== i || n.length > 15)).toEqual([]);
  });
});

describe.each(VARIANTS)('%s services', (v) => {
  const pods = templates(v).map(([, t]) => t);
  it.each(services(variant(v)).map((s) => [s.metadata.name, s] as const))(
    '%s targets declared ports',
    (_, s) => {
      const selected = pods.filter((t) =>
        Object.entries(s.spec.selector).every(([k, val]) => t.metadata.labels[k] === val),
      );
      expect(selected.length).toBeGreaterThan(0);
      for (const t of selected) {
        const declared = t.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name));
        expect(s.spec.ports.map((p) => p.targetPort).filter((p) => !declared.includes(p))).toEqual([]);
      }
    },
  );
});
