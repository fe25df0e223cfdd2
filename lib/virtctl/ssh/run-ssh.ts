/**
 * `virtctl-ts ssh` and `virtctl-ts scp` (KubeVirt virtctl's SSH.Run and SCP.Run in wrapped mode): parse the
 * target, refuse --local-ssh=false (KubeVirt's native Go client is not built here), resolve the namespace
 * from the kubeconfig when the target has none, and run the system's ssh/scp with this CLI as ProxyCommand.
 * The run's exit code is the client's.
 */
import type { Command } from 'commander';
import { KvError } from '../../kernel/errors/errors.ts';
import type { GlobalFlags } from '../client.ts';
import { writeLine } from '../io.ts';
import { LEGACY_TARGET_WARNING, type ForwardTarget } from '../portforward/forward-args.ts';
import type { Session } from '../session.ts';
import {
  parseScpLocations,
  parseSshTarget,
  scpArgv,
  sshArgv,
  type LocalClientArgs,
} from './local-client-args.ts';
import { runLocalClient } from './run-local-client.ts';
import { selfCommand } from './self-command.ts';

export interface ClientFlags {
  readonly username?: string;
  readonly identityFile?: string;
  readonly knownHosts?: string;
  readonly port: number;
  readonly localSshOpts: readonly string[];
  readonly localSsh: boolean;
}

export interface ScpFlags extends ClientFlags {
  readonly recursive?: boolean;
  readonly preserve?: boolean;
}

const DEPRECATED_LOCAL_SSH = 'The --local-ssh flag is deprecated and now defaults to true.';

/** KubeVirt's defaultUsername: $USER, else $USERNAME, else $LOGNAME. */
function defaultUsername(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return [env['USER'], env['USERNAME'], env['LOGNAME']].find((v) => v !== undefined && v !== '');
}

function checkLocalSsh(s: Session, cmd: Command, flags: ClientFlags, verb: 'ssh' | 'scp'): void {
  // Only ssh says so in KubeVirt; scp takes the flag silently.
  if (verb === 'ssh' && cmd.getOptionValueSource('localSsh') === 'cli') {
    writeLine(s.io.stderr, DEPRECATED_LOCAL_SSH);
  }
  if (!flags.localSsh) {
    throw new KvError(
      'KV_ERR_NOT_IMPLEMENTED',
      `virtctl-ts ${verb} has no built-in SSH client: only the local ${verb} client of this system is supported; drop --local-ssh=false`,
    );
  }
}

function clientArgs(
  s: Session,
  cmd: Command,
  o: { flags: ClientFlags; target: ForwardTarget; username: string | undefined },
): LocalClientArgs {
  if (o.target.legacy) writeLine(s.io.stderr, `Warning: ${LEGACY_TARGET_WARNING}`);
  const globals = cmd.optsWithGlobals<GlobalFlags>();
  const { flags, target } = o;
  const username = o.username ?? flags.username ?? defaultUsername(s.io.env);
  return {
    self: s.io.self ?? selfCommand(process),
    ...(globals.kubeconfig !== undefined && { kubeconfig: globals.kubeconfig }),
    ...(globals.context !== undefined && { context: globals.context }),
    target: {
      kind: target.kind,
      name: target.name,
      namespace: target.namespace ?? s.client(cmd).namespace,
    },
    port: flags.port,
    localOptions: flags.localSshOpts,
    ...(flags.identityFile !== undefined && { identityFile: flags.identityFile }),
    ...(flags.knownHosts !== undefined && { knownHosts: flags.knownHosts }),
    ...(username !== undefined && { username }),
  };
}

export async function runSsh(
  s: Session,
  cmd: Command,
  o: { target: string; flags: ClientFlags & { command?: string } },
): Promise<void> {
  const { username, target } = parseSshTarget(o.target);
  checkLocalSsh(s, cmd, o.flags, 'ssh');
  const args = clientArgs(s, cmd, { flags: o.flags, target, username });
  s.exitCode = await runLocalClient({ program: 'ssh', argv: sshArgv(args, o.flags.command), io: s.io });
}

export async function runScp(
  s: Session,
  cmd: Command,
  o: { source: string; destination: string; flags: ScpFlags },
): Promise<void> {
  const loc = parseScpLocations(o.source, o.destination);
  checkLocalSsh(s, cmd, o.flags, 'scp');
  const args = clientArgs(s, cmd, {
    flags: o.flags,
    target: loc.remote.target,
    username: loc.remote.username,
  });
  const argv = scpArgv(args, {
    recursive: o.flags.recursive === true,
    preserve: o.flags.preserve === true,
    local: loc.local,
    remotePath: loc.remote.path,
    toRemote: loc.toRemote,
  });
  s.exitCode = await runLocalClient({ program: 'scp', argv, io: s.io });
}
