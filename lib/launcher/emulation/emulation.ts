/**
 * KVM or TCG (KubeVirt's useEmulation). `on` forces TCG; `off` forces KVM (the domain fails to start when KVM
 * does not work, as in KubeVirt without emulation); `auto` uses KVM only when libvirt offers it for this
 * emulator and the probe guest really runs under it (kvm-probe.ts), TCG otherwise.
 */
import type { Logger } from '../../kernel/log/log.ts';
import { getDomainCapabilities, type LibvirtConnection } from '../../libvirt/index.ts';
import { child, parseXml } from '../xml-read.ts';
import type { ProbeResult } from './kvm-probe.ts';

export type EmulationMode = 'auto' | 'on' | 'off';
export const EMULATION_MODES: readonly EmulationMode[] = ['auto', 'on', 'off'];

export interface EmulationDecision {
  /** true: TCG (domain type qemu). */
  readonly emulation: boolean;
  readonly reason: string;
}

export interface KvmFacts {
  /** libvirt's domain capabilities for virt type kvm answered with <domain>kvm</domain>. */
  readonly libvirtOffersKvm: boolean;
  readonly libvirtReason: string;
  /** The probe run, when one was made. */
  readonly probe?: ProbeResult;
}

/** Pure: the decision for a mode and what was found out. */
export function decideEmulation(mode: EmulationMode, facts: KvmFacts | undefined): EmulationDecision {
  if (mode === 'on') return { emulation: true, reason: '--emulation=on forces TCG' };
  if (mode === 'off') return { emulation: false, reason: '--emulation=off forces KVM' };
  if (facts === undefined || !facts.libvirtOffersKvm) {
    return { emulation: true, reason: `libvirt offers no KVM: ${facts?.libvirtReason ?? 'not asked'}` };
  }
  if (facts.probe === undefined) return { emulation: true, reason: 'KVM was not probed' };
  if (!facts.probe.ok) return { emulation: true, reason: `KVM probe failed: ${facts.probe.reason}` };
  return { emulation: false, reason: `KVM probe guest ran in ${facts.probe.elapsedMs} ms` };
}

/** The emulator libvirt would use with KVM, or why there is none. Pure over the domain capabilities XML. */
export function kvmEmulator(domCapsXml: string): { emulator?: string; reason: string } {
  const caps = parseXml(domCapsXml);
  const domain = child(caps, 'domain')?.text ?? '';
  const path = child(caps, 'path')?.text ?? '';
  if (domain !== 'kvm') return { reason: `domain capabilities name virt type ${JSON.stringify(domain)}` };
  if (path === '') return { reason: 'domain capabilities name no emulator' };
  return { emulator: path, reason: 'ok' };
}

export interface DetectOptions {
  readonly mode: EmulationMode;
  readonly conn: LibvirtConnection;
  readonly arch: string;
  readonly log: Logger;
  readonly probe: (qemu: string) => Promise<ProbeResult>;
}

async function kvmFacts(opts: DetectOptions): Promise<KvmFacts> {
  let xml: string;
  try {
    xml = await getDomainCapabilities(opts.conn, { virtType: 'kvm', arch: opts.arch });
  } catch (err) {
    return { libvirtOffersKvm: false, libvirtReason: err instanceof Error ? err.message : String(err) };
  }
  const { emulator, reason } = kvmEmulator(xml);
  if (emulator === undefined) return { libvirtOffersKvm: false, libvirtReason: reason };
  return { libvirtOffersKvm: true, libvirtReason: reason, probe: await opts.probe(emulator) };
}

/** Finds out (unless the mode says) and logs which accelerator the launcher uses. */
export async function detectEmulation(opts: DetectOptions): Promise<EmulationDecision> {
  const facts = opts.mode === 'auto' ? await kvmFacts(opts) : undefined;
  const decision = decideEmulation(opts.mode, facts);
  opts.log.info('accelerator chosen', {
    mode: opts.mode,
    accelerator: decision.emulation ? 'tcg' : 'kvm',
    emulation: decision.emulation,
    reason: decision.reason,
  });
  return decision;
}
