/**
 * `virt launcher probe`, the exec probe the kubelet runs in the compute container for a VMI's guestAgentPing and
 * exec probes (kubevirt cmd/virt-probe, tag v1.6.2): it dials the launcher's Cmd socket, asks for GuestPing or
 * Exec, and says how it went as an exit code and one line. The code is 0 when the probe passes; an exec that ran
 * gives the guest command's own code and its stdout; anything else (no launcher, no domain, no agent, no answer
 * in time) is 1, where KubeVirt's virt-probe exits 255 for a failed Exec. The whole run, dial included, ends
 * within the probe's timeout plus the short RPC tier (5 s): the RPC's own deadline in KubeVirt.
 */
import { realClock, type Clock, type TimerHandle } from '../kernel/clock.ts';
import { errorMessage, KvError } from '../kernel/errors/errors.ts';
import { DEFAULT_DEADLINES, type DeadlineTiers } from '../rpc/deadlines.ts';
import { newCmdClient, type LauncherClient } from '../rpc/index.ts';

export interface ProbeFlags {
  /** The launcher's Cmd socket. */
  readonly socket: string;
  /** The domain, `<namespace>_<name>`. */
  readonly domainName: string;
  readonly timeoutSeconds: number;
  readonly guestAgentPing: boolean;
  /** The exec probe's program and its arguments. */
  readonly command?: string;
  readonly args: readonly string[];
  /** Overrides of the RPC tiers (tests use short ones). */
  readonly deadlines?: Partial<DeadlineTiers>;
}

export interface ProbeOutcome {
  readonly exitCode: number;
  /** What the guest command printed (exec only), as virt-probe prints it. */
  readonly stdout?: string;
  /** Why the probe failed, one line. */
  readonly reason?: string;
}

const failed = (reason: string): ProbeOutcome => ({ exitCode: 1, reason: reason.replace(/\s+/g, ' ') });

async function ask(client: LauncherClient, f: ProbeFlags): Promise<ProbeOutcome> {
  const timeoutSeconds = Math.max(1, f.timeoutSeconds);
  if (f.guestAgentPing) {
    await client.guestPing(f.domainName, timeoutSeconds).catch((err: unknown) => {
      throw new KvError('KV_ERR_LAUNCHER', `guest agent ping failed: ${errorMessage(err)}`, { cause: err });
    });
    return { exitCode: 0 };
  }
  if (f.command === undefined || f.command === '')
    return failed('neither --command nor --guestAgentPing given');
  const command = f.command;
  const r = await client
    .exec({ domainName: f.domainName, command, args: f.args, timeoutSeconds })
    .catch((err: unknown) => {
      throw new KvError('KV_ERR_LAUNCHER', `${command} could not run in the guest: ${errorMessage(err)}`, {
        cause: err,
      });
    });
  const stdout = r.stdOut === '' ? {} : { stdout: r.stdOut };
  if (r.exitCode === 0) return { exitCode: 0, ...stdout };
  return { exitCode: r.exitCode, ...stdout, reason: `${command} exited with code ${String(r.exitCode)}` };
}

async function probeOnce(f: ProbeFlags, signal: AbortSignal): Promise<ProbeOutcome> {
  let client: LauncherClient;
  try {
    client = await newCmdClient(f.socket, { ...(f.deadlines !== undefined && { deadlines: f.deadlines }) });
  } catch (err) {
    return failed(`cannot reach the launcher at ${f.socket}: ${errorMessage(err)}`);
  }
  // The limit passed while the client is in use: the caller has answered already, so close it.
  const close = (): void => {
    client.close();
  };
  signal.addEventListener('abort', close, { once: true });
  try {
    return await ask(client, f);
  } catch (err) {
    return failed(errorMessage(err));
  } finally {
    signal.removeEventListener('abort', close);
    client.close();
  }
}

/** Runs the probe once; never rejects, and settles within the probe's timeout plus the short tier. */
export async function runProbe(f: ProbeFlags, clock: Clock = realClock): Promise<ProbeOutcome> {
  const tiers = { ...DEFAULT_DEADLINES, ...f.deadlines };
  const limitMs = Math.max(1, f.timeoutSeconds) * 1000 + tiers.shortMs;
  const ac = new AbortController();
  let timer: TimerHandle | undefined;
  const late = new Promise<ProbeOutcome>((resolve) => {
    timer = clock.after(limitMs, () => {
      ac.abort();
      resolve(failed(`no answer from the launcher within ${String(limitMs / 1000)}s`));
    });
  });
  try {
    return await Promise.race([probeOnce(f, ac.signal), late]);
  } finally {
    timer?.cancel();
  }
}
