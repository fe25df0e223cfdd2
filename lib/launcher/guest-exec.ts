/**
 * A command run inside the guest by the QEMU guest agent, as the launcher's Exec RPC runs it for exec probes
 * (kubevirt virtwrap/agent/exec.go GuestExec, tag v1.6.2): guest-exec with the output captured, then
 * guest-exec-status every tenth of the timeout until the process has exited or the timeout has passed.
 * The agent is reached through an injected call, so the polling is tested without libvirt.
 *
 * Differences from KubeVirt, both on the safe side: the command and its arguments are JSON-encoded (KubeVirt
 * pastes them into the JSON text unescaped), and a process killed by a signal fails with 128 + the signal
 * (KubeVirt reads the missing exit code as 0, a success).
 */
import type { Clock } from '../kernel/clock.ts';
import { KvError } from '../kernel/errors/errors.ts';

/** One agent command as JSON, answered with the agent's raw JSON text (null when it sent none). */
export type AgentCall = (command: object) => Promise<string | null>;

export interface GuestExecRequest {
  readonly command: string;
  readonly args: readonly string[];
  /** How long the process may run (at least 1 s is used, KubeVirt's probe default). */
  readonly timeoutSeconds: number;
}

/** The process ran to its end: its exit code (0 is success) and what it wrote to stdout. */
export interface GuestExecResult {
  readonly exitCode: number;
  readonly stdOut: string;
}

/** The `return` member of an agent answer, which must be an object. */
function returned(text: string | null, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = text === null ? undefined : JSON.parse(text);
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', `${what}: the guest agent answered no JSON`, { cause: err });
  }
  const ret = (parsed as { return?: unknown } | undefined)?.return;
  if (typeof ret !== 'object' || ret === null) {
    throw new KvError('KV_ERR_DECODE', `${what}: the guest agent's answer has no return object`);
  }
  return ret as Record<string, unknown>;
}

function finished(status: Record<string, unknown>): GuestExecResult {
  const out = typeof status['out-data'] === 'string' ? status['out-data'] : '';
  const stdOut = Buffer.from(out, 'base64').toString('utf8');
  const signal = status['signal'];
  if (typeof signal === 'number') return { exitCode: 128 + signal, stdOut };
  const code = status['exitcode'];
  return { exitCode: typeof code === 'number' ? code : 0, stdOut };
}

/**
 * Runs the command in the guest and waits for it; rejects when the agent fails, answers nonsense, or the
 * process is still running after the timeout (it is left running, as KubeVirt leaves it), or when `signal`
 * aborts (the caller went away).
 */
export async function guestExec(
  agent: AgentCall,
  clock: Clock,
  req: GuestExecRequest,
  signal?: AbortSignal,
): Promise<GuestExecResult> {
  const timeoutSeconds = Math.max(1, req.timeoutSeconds);
  const started = returned(
    await agent({
      execute: 'guest-exec',
      arguments: { path: req.command, arg: [...req.args], 'capture-output': true },
    }),
    'guest-exec',
  );
  const pid = started['pid'];
  if (typeof pid !== 'number' || pid <= 0) {
    throw new KvError('KV_ERR_LAUNCHER', `guest-exec gave no process id for ${req.command}`);
  }
  const until = clock.now() + timeoutSeconds * 1000;
  for (;;) {
    const status = returned(
      await agent({ execute: 'guest-exec-status', arguments: { pid } }),
      'guest-exec-status',
    );
    if (status['exited'] === true) return finished(status);
    await clock.sleep(timeoutSeconds * 100, signal);
    if (clock.now() > until) {
      throw new KvError(
        'KV_ERR_TIMEOUT',
        `${req.command} (guest pid ${String(pid)}) did not exit within ${String(timeoutSeconds)}s`,
      );
    }
  }
}
