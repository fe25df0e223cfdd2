/**
 * The virtctl-ts command tree (KubeVirt virtctl's command and flag names) and one run of it: parse, act, and
 * turn a failure into its message on stderr and its exit code. Nothing here exits the process.
 */
import { Argument, Command, CommanderError } from 'commander';
import { realClock, type Clock } from '../kernel/clock.ts';
import { addLifecycleCommands, addMigrateCommands, addVolumeCommands } from './commands-vm.ts';
import { addForwardCommands } from './commands-forward.ts';
import { addStreamCommands, addVmiCommands } from './commands-vmi.ts';
import { bashCompletion, commandTree, zshCompletion } from './completion.ts';
import { describeError } from './errors/describe-error.ts';
import { EXIT, exitCodeHelp } from './errors/exit-codes.ts';
import type { CliIo } from './io.ts';
import { runVersion } from './run-version.ts';
import { withoutUserinfo } from './server-url.ts';
import { Session } from './session.ts';

const PROGRAM = 'virtctl-ts';

export function virtctlProgram(s: Session): Command {
  const root = new Command(PROGRAM)
    .description('Control KubeVirt virtual machines through the Kubernetes API server, with a kubeconfig.')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current-context)')
    .option('-n, --namespace <namespace>', "namespace of the VM/VMI (default: the context's, else default)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => s.io.stdout.write(text),
      writeErr: (text) => s.io.stderr.write(text),
    })
    .showHelpAfterError(`(run \`${PROGRAM} --help\` for the commands)`)
    .addHelpText('after', `\n${exitCodeHelp()}`);
  addLifecycleCommands(root, s);
  addMigrateCommands(root, s);
  addStreamCommands(root, s);
  addForwardCommands(root, s);
  addVolumeCommands(root, s);
  addVmiCommands(root, s);
  root
    .command('version')
    .description('Print the client and server version information.')
    .option('-c, --client', 'client version only (no server required)')
    .action((_o: unknown, cmd: Command) => runVersion(s, cmd));
  root
    .command('completion')
    .description('Print a shell completion script: source <(virtctl-ts completion bash)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh']))
    .action((shell: string) => {
      const tree = commandTree(root);
      s.io.stdout.write(shell === 'zsh' ? zshCompletion(tree) : bashCompletion(tree));
    });
  return root;
}

export interface RunDeps {
  readonly io: CliIo;
  readonly clock?: Clock;
}

/** Runs one command line (without the program name) and answers its exit code. */
export async function runVirtctl(argv: readonly string[], deps: RunDeps): Promise<number> {
  const s = new Session(deps.io, deps.clock ?? realClock);
  try {
    await virtctlProgram(s).parseAsync([...argv], { from: 'user' });
    return s.exitCode ?? EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const d = describeError(err, { namespace: s.namespace });
    s.io.stderr.write(`${withoutUserinfo(d.text)}\n`);
    return d.exit;
  } finally {
    await s.close();
  }
}
