/** `virt <role>`: the one entrypoint of the image. Registers the roles; holds no logic. */
import { Command } from 'commander';
import { versionLine } from '../lib/version/version.ts';
import { controllerCommand } from './controller.ts';
import { launcherCommand } from './launcher.ts';
import { rewriterCommand } from './rewriter.ts';
import { ROLES, roleCommand } from './roles.ts';

const program = new Command('virt')
  .description('KubeVirt-compatible virtualization core: pick a role')
  .version(versionLine(), '--version', 'print the version and git commit')
  .enablePositionalOptions()
  .showHelpAfterError('(run `virt --help` for the roles)')
  .exitOverride((err) => process.exit(err.exitCode));
for (const role of ROLES) program.addCommand(roleCommand(role));
program.addCommand(controllerCommand());
program.addCommand(launcherCommand());
program.addCommand(rewriterCommand());
await program.parseAsync();
