/**
 * The contract between the operator's workload generators and the roles' commands: every container the
 * generators render that runs the image's `virt` (no command of its own) passes arguments its role's real
 * command parses, once the kubelet has expanded `$(VAR)` from the container's environment. A flag the role
 * does not have, a value its parser refuses or a missing required flag fails here; no role's action runs.
 */
import { describe, expect, it } from '@jest/globals';
import { Command } from 'commander';
import { BUILT_ROLES } from '../../cmd/built-roles.ts';
import { apiDeployment } from '../../lib/operator/generate/workloads/api.ts';
import type { Container, EnvVar } from '../../lib/operator/generate/workloads/container.ts';
import { controllerDeployment } from '../../lib/operator/generate/workloads/controller.ts';
import { handlerDaemonSet } from '../../lib/operator/generate/workloads/handler.ts';
import { operatorDeployment } from '../../lib/operator/generate/workloads/operator.ts';
import { VARIANTS, variant } from '../../lib/operator/generate/workloads/testing/variants.ts';
import type { PodTemplate } from '../../lib/operator/generate/workloads/workload.ts';

/** What the kubelet puts in a field reference on some node. */
const FIELD_VALUES: Readonly<Record<string, string>> = {
  'spec.nodeName': 'node-1',
  'status.hostIP': '192.0.2.10',
  'status.podIP': '10.244.0.7',
};

function templates(): [string, PodTemplate][] {
  return VARIANTS.flatMap((v) => {
    const cfg = variant(v);
    const [operator] = operatorDeployment(cfg, { replicas: 2 });
    return [apiDeployment(cfg), controllerDeployment(cfg), handlerDaemonSet(cfg), operator].map(
      (w): [string, PodTemplate] => [`${v} ${w.metadata.name ?? ''}`, w.spec.template],
    );
  });
}

const VIRT_CONTAINERS = templates().flatMap(([workload, t]) =>
  [...(t.spec.initContainers ?? []), ...t.spec.containers]
    .filter((c) => c.command === undefined)
    .map((c) => [`${workload}/${c.name}`, c] as const),
);

function envValue(e: EnvVar): string {
  if ('value' in e) return e.value;
  const v = FIELD_VALUES[e.valueFrom.fieldRef.fieldPath];
  if (v === undefined) throw new Error(`no sample value for field ${e.valueFrom.fieldRef.fieldPath}`);
  return v;
}

const REFERENCE = /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g;

/** The arguments as the kubelet passes them: each `$(VAR)` of the container's environment expanded. */
function expanded(c: Container): string[] {
  const env = new Map((c.env ?? []).map((e) => [e.name, envValue(e)]));
  return (c.args ?? []).map((a) => a.replace(REFERENCE, (ref, name: string) => env.get(name) ?? ref));
}

/** The command with its output dropped, failures thrown, and its actions (and its subcommands') no-ops. */
function parseOnly(cmd: Command): Command {
  cmd
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .action(() => undefined);
  for (const sub of cmd.commands) parseOnly(sub);
  return cmd;
}

/** Parses args as `virt` does (cmd/main.ts), with every built role's real command. */
async function parse(args: readonly string[]): Promise<void> {
  const program = parseOnly(new Command('virt').enablePositionalOptions());
  for (const load of Object.values(BUILT_ROLES)) program.addCommand(parseOnly(await load()));
  await program.parseAsync([...args], { from: 'user' });
}

describe.each(VIRT_CONTAINERS)('%s', (_, c) => {
  it('names only variables of its environment', () => {
    const names = new Set((c.env ?? []).map((e) => e.name));
    const refs = (c.args ?? []).flatMap((a) => [...a.matchAll(REFERENCE)].map((m) => m[1] ?? ''));
    expect(refs.filter((r) => !names.has(r))).toEqual([]);
  });

  it("passes arguments its role's command parses", async () => {
    await expect(parse(expanded(c))).resolves.toBeUndefined();
  });

  it('would fail with a flag its role does not have', async () => {
    await expect(parse([...expanded(c), '--no-such-flag', 'x'])).rejects.toThrow(
      "unknown option '--no-such-flag'",
    );
  });
});

it('covers every role the generators run', () => {
  const roles = new Set(VIRT_CONTAINERS.map(([, c]) => c.args?.[0]));
  expect([...roles].sort()).toEqual([
    'api',
    'controller',
    'handler',
    'launcher',
    'operator',
    'pr-helper',
    'rewriter',
  ]);
});
