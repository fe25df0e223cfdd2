/**
 * The roles of the one binary, with the flags each will take. A role whose implementation has not landed
 * yet is listed here and refuses to run (exit 2, `role <name> is not implemented yet`): it never fakes.
 * When a role lands it moves to its own cmd/<role>.ts with a run(signal).
 */
import { Command, Option } from 'commander';

const NOT_IMPLEMENTED_EXIT = 2;

interface FlagSpec {
  flags: string;
  description: string;
  default?: string;
  choices?: readonly string[];
}

interface RoleSpec {
  name: string;
  description: string;
  kube: boolean;
  flags: FlagSpec[];
  subcommands?: RoleSpec[];
}

const KUBE_FLAGS: FlagSpec[] = [
  {
    flags: '--kubeconfig <path>',
    description: 'kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)',
  },
  { flags: '--context <name>', description: 'kubeconfig context' },
  { flags: '--kube-api-qps <n>', description: 'client QPS to the API server', default: '50' },
  { flags: '--kube-api-burst <n>', description: 'client burst to the API server', default: '100' },
];
const VERBOSITY: FlagSpec = {
  flags: '-v, --verbosity <n>',
  description: 'log verbosity (debug levels above 2)',
  default: '2',
};

export const ROLES: RoleSpec[] = [];

function refuse(name: string): never {
  console.error(`role ${name} is not implemented yet`);
  process.exit(NOT_IMPLEMENTED_EXIT);
}

export function roleCommand(spec: RoleSpec, path: string[] = []): Command {
  const cmd = new Command(spec.name).description(spec.description);
  for (const f of [...(spec.kube ? KUBE_FLAGS : []), ...spec.flags, VERBOSITY]) {
    const opt = new Option(f.flags, f.description);
    if (f.default !== undefined) opt.default(f.default);
    if (f.choices) opt.choices(f.choices);
    cmd.addOption(opt);
  }
  const full = [...path, spec.name].join(' ');
  for (const sub of spec.subcommands ?? []) cmd.addCommand(roleCommand(sub, [...path, spec.name]));
  cmd.action(() => refuse(full));
  return cmd;
}
