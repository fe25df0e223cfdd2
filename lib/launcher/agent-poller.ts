/**
 * What the guest agent says of the guest, kept current for the handler (kubevirt pkg/virt-launcher/virtwrap/
 * agent-poller): while the agent is connected, every intervalMs the launcher asks it for the OS, the
 * filesystem freeze status and the guest's interfaces, keeps the answer in the domain report (DomainManager.noteGuestFacts) and, when it
 * changed, sends the domain to the handler (notify), so guestOSInfo and fsFreezeStatus reach the VMI status
 * without waiting for a resync. A query that fails keeps the last answer.
 */
import type { Clock, TimerHandle } from '../kernel/clock.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { GuestOsInfoJson, InterfaceStatusJson } from '../rpc/index.ts';

const AGENT_POLL_INTERVAL_MS = 5_000;

export interface GuestFacts {
  readonly osInfo: Partial<GuestOsInfoJson>;
  /** 'frozen' or 'thawed'; '' when the agent does not say. */
  readonly fsFreezeStatus: string;
  /** The guest's interfaces (guest-network-get-interfaces); empty when the agent does not say. */
  readonly interfaces: readonly InterfaceStatusJson[];
}

export interface AgentPollerOptions {
  readonly agentConnected: () => boolean;
  readonly read: () => Promise<GuestFacts>;
  readonly note: (facts: GuestFacts) => void;
  readonly notify: () => void;
  readonly clock: Clock;
  readonly log: Logger;
  readonly intervalMs?: number;
}

/** The facts as the report keeps them: an empty answer (the agent silent this time) keeps the last one. */
export function mergeFacts(last: GuestFacts, read: GuestFacts): GuestFacts {
  return {
    osInfo: Object.keys(read.osInfo).length > 0 ? read.osInfo : last.osInfo,
    fsFreezeStatus: read.fsFreezeStatus !== '' ? read.fsFreezeStatus : last.fsFreezeStatus,
    interfaces: read.interfaces.length > 0 ? read.interfaces : last.interfaces,
  };
}

export class AgentPoller {
  private timer: TimerHandle | undefined;
  private last: GuestFacts = { osInfo: {}, fsFreezeStatus: '', interfaces: [] };
  private stopped = false;

  constructor(private readonly o: AgentPollerOptions) {}

  start(): void {
    this.schedule();
  }

  /** One poll now (also what each tick does); resolves once the facts are noted and, if changed, sent. */
  async poll(): Promise<void> {
    if (!this.o.agentConnected()) return;
    const facts = mergeFacts(this.last, await this.o.read());
    if (JSON.stringify(facts) === JSON.stringify(this.last)) return;
    this.last = facts;
    this.o.note(facts);
    this.o.log
      .v(2)
      .info('guest facts changed', { fsFreezeStatus: facts.fsFreezeStatus, os: facts.osInfo.Id });
    this.o.notify();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.after(this.o.intervalMs ?? AGENT_POLL_INTERVAL_MS, () => {
      this.poll()
        .catch((err: unknown) => {
          this.o.log.v(3).info('guest agent poll failed', { reason: err });
        })
        .finally(() => {
          this.schedule();
        });
    });
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }
}
