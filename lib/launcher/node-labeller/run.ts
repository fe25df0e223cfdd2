/**
 * `virt launcher node-labeller --output DIR` (kubevirt's node-labeller.sh in the handler's init container):
 * starts a private libvirt, finds out KVM or TCG as the launcher does, and writes for the handler
 * capabilities.xml, domcapabilities.xml (for that accelerator), host-facts.json (facts.ts) and
 * node-labels.json (labels.ts).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../kernel/log/log.ts';
import { getCapabilities, getDomainCapabilities, LibvirtConnection } from '../../libvirt/index.ts';
import { startLauncherLibvirt } from '../../libvirt/daemon/libvirt-daemon.ts';
import { detectEmulation, type EmulationMode } from '../emulation/emulation.ts';
import { runKvmProbe } from '../emulation/kvm-probe.ts';
import { NODE_LABELLER_FILES as FILES, type NodeFacts } from '../../rpc/index.ts';
import { nodeFacts } from './facts.ts';
import { nodeLabels } from './labels.ts';

export interface NodeLabellerOptions {
  readonly output: string;
  readonly emulation: EmulationMode;
  readonly log: Logger;
  readonly qemuCapsCache?: string;
}

export async function runNodeLabeller(o: NodeLabellerOptions): Promise<NodeFacts> {
  const root = await mkdtemp(join(tmpdir(), 'kvnl-'));
  try {
    return await labelWith(root, o);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function labelWith(root: string, opts: NodeLabellerOptions): Promise<NodeFacts> {
  const lv = await startLauncherLibvirt({
    root,
    log: opts.log,
    ...(opts.qemuCapsCache !== undefined && { capsCache: opts.qemuCapsCache }),
  });
  try {
    const conn = await LibvirtConnection.open({ socketPath: lv.socketPath, uri: lv.uri, log: opts.log });
    try {
      const decision = await detectEmulation({
        mode: opts.emulation,
        conn,
        arch: 'x86_64',
        log: opts.log,
        probe: (qemu) => runKvmProbe({ qemu, accel: 'kvm' }),
      });
      const capabilitiesXml = await getCapabilities(conn);
      const virtType = decision.emulation ? 'qemu' : 'kvm';
      const domCapabilitiesXml = await getDomainCapabilities(conn, {
        virtType,
        arch: 'x86_64',
        machine: 'q35',
      });
      const facts = nodeFacts({ capabilitiesXml, domCapabilitiesXml, emulation: decision.emulation });
      await mkdir(opts.output, { recursive: true });
      await writeFile(join(opts.output, FILES.capabilities), capabilitiesXml);
      await writeFile(join(opts.output, FILES.domCapabilities), domCapabilitiesXml);
      await writeFile(join(opts.output, FILES.facts), `${JSON.stringify(facts, null, 2)}\n`);
      await writeFile(join(opts.output, FILES.labels), `${JSON.stringify(nodeLabels(facts), null, 2)}\n`);
      opts.log.info('node facts written', {
        output: opts.output,
        emulation: facts.emulation,
        cpuModels: facts.cpuModels.length,
        machineTypes: facts.machineTypes.length,
      });
      return facts;
    } finally {
      await conn.close();
    }
  } finally {
    await lv.stop();
  }
}
