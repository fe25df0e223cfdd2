/**
 * `virt <role>`: the one entrypoint of the image. Registers the roles; holds no logic. A built role's module is
 * imported only when that role runs (or for help), so one process never loads another role's dependencies:
 * the launcher, one per VM, stays small.
 */
import { Command } from 'commander';
import { versionLine } from '../lib/version/version.ts';
import { BUILT_ROLES as BUILT } from './built-roles.ts';
import { ROLES, roleCommand } from './roles.ts';

const program = new Command('virt')
  .description('KubeVirt-compatible virtualization core: pick a role')
  .version(versionLine(), '--version', 'print the version and git commit')
  .enablePositionalOptions()
  .showHelpAfterError('(run `virt --help` for the roles)')
  .exitOverride((err) => process.exit(err.exitCode));
for (const role of ROLES) program.addCommand(roleCommand(role));
const wanted = process.argv[2] ?? '';
const load = BUILT[wanted];
if (load !== undefined) program.addCommand(await load());
else for (const built of Object.values(BUILT)) program.addCommand(await built());
await program.parseAsync();
