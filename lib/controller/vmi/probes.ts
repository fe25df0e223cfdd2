/**
 * The compute container's readiness and liveness probes from the VMI's (kubevirt rendercontainer.go
 * WithReadinessProbe/WithLivelinessProbe, update*Probe; template.go copyProbe, wrapGuestAgentPingWithVirtProbe,
 * wrapExecProbeWithVirtProbe; tag v1.6.2). Pure.
 * - KubeVirt's probe defaults first (timeout 1, period 10, success 1, failure 3 for anything below 1);
 * - httpGet and tcpSocket go onto the Pod as they are: the kubelet reaches the guest through the Pod network;
 * - guestAgentPing and exec become exec probes running `virt launcher probe` (KubeVirt's virt-probe, same flags)
 *   in the compute container with the VMI's timeout, and the Pod's timeout is one second longer for the hop
 *   through the launcher;
 * - every probe starts 10 s later than asked (LibvirtStartupDelay).
 */
import type { Probe } from '../../kubevirt/core/pod.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';

type JsonObject = Record<string, unknown>;

/** Seconds added to each probe's initial delay (template.go LibvirtStartupDelay). */
const LIBVIRT_STARTUP_DELAY_SECONDS = 10;

/** The program and subcommand in the launcher image that probes through the launcher socket. */
const DEFAULT_PROBE_COMMAND: readonly string[] = ['virt', 'launcher', 'probe'];

/** A core/v1 Probe as the Pod carries it: every timing set. */
type PodProbe = Probe & Required<Omit<Probe, 'exec' | 'httpGet' | 'tcpSocket'>>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const int = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) ? v : 0);

/** At least 1, else the default (v1 SetDefaults_Probe). */
const atLeastOne = (v: unknown, fallback: number): number => (int(v) < 1 ? fallback : int(v));

/** The exec probe's command when it is a non-empty list of strings. */
function execCommand(exec: unknown): string[] | undefined {
  const command = isObject(exec) ? exec['command'] : undefined;
  if (!Array.isArray(command) || command.length === 0) return undefined;
  return command.every((c): c is string => typeof c === 'string') ? command : undefined;
}

/** The Pod's probe for one of the VMI's; `command` is the probe program (DEFAULT_PROBE_COMMAND in the image). */
export function launcherProbe(
  vmi: Pick<VirtualMachineInstance, 'metadata'>,
  probe: JsonObject,
  command: readonly string[],
): PodProbe {
  const timeoutSeconds = atLeastOne(probe['timeoutSeconds'], 1);
  const out: PodProbe = {
    initialDelaySeconds: int(probe['initialDelaySeconds']) + LIBVIRT_STARTUP_DELAY_SECONDS,
    timeoutSeconds,
    periodSeconds: atLeastOne(probe['periodSeconds'], 10),
    successThreshold: atLeastOne(probe['successThreshold'], 1),
    failureThreshold: atLeastOne(probe['failureThreshold'], 3),
  };
  for (const handler of ['exec', 'httpGet', 'tcpSocket'] as const) {
    const v = probe[handler];
    if (isObject(v)) out[handler] = structuredClone(v);
  }
  const probeArgs = [
    ...command,
    '--domainName',
    `${vmi.metadata.namespace ?? ''}_${vmi.metadata.name ?? ''}`,
    '--timeoutSeconds',
    String(timeoutSeconds),
  ];
  const guestCommand = execCommand(probe['exec']);
  if (probe['guestAgentPing'] !== undefined && probe['guestAgentPing'] !== null) {
    out.exec = { command: [...probeArgs, '--guestAgentPing'] };
    out.timeoutSeconds += 1;
  } else if (guestCommand !== undefined) {
    const [program = '', ...args] = guestCommand;
    out.exec = { command: [...probeArgs, '--command', program, '--', ...args] };
    out.timeoutSeconds += 1;
  }
  return out;
}

/** readinessProbe and livenessProbe of the compute container, each when the VMI has one. */
export function launcherProbes(
  vmi: Pick<VirtualMachineInstance, 'metadata' | 'spec'>,
  command: readonly string[] = DEFAULT_PROBE_COMMAND,
): { readinessProbe?: PodProbe; livenessProbe?: PodProbe } {
  const { readinessProbe, livenessProbe } = vmi.spec;
  return {
    ...(readinessProbe !== undefined && { readinessProbe: launcherProbe(vmi, readinessProbe, command) }),
    ...(livenessProbe !== undefined && { livenessProbe: launcherProbe(vmi, livenessProbe, command) }),
  };
}
