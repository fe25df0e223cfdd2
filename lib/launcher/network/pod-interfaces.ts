/**
 * The Pod's interfaces as its CNI left them, read once when the launcher starts: before its Cmd socket
 * listens, so before the handler moves a bridge binding's pod interface under a bridge and takes its
 * addresses away. The bridge binding's DHCP server hands those addresses, gateway and routes to the guest, and
 * the guest's NIC takes the pod interface's MAC. KubeVirt's handler stores them in a cache file that it writes
 * into the launcher's filesystem (pkg/network/cache, tag v1.6.2); here the launcher reads them in its own
 * namespace, so the handler writes nothing into the tenant's files.
 */
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { runCommand, type CommandRunner } from '../../network/setup/command.ts';
import { parseLinks, parsePodInterface, type PodInterface } from '../../network/setup/pod-interface.ts';

export type PodInterfaces = ReadonlyMap<string, PodInterface>;

/** Every interface but the loopback, with its addresses and IPv4 routes; nothing when `ip` cannot tell. */
export async function readPodInterfaces(
  log: Logger,
  run: CommandRunner = runCommand,
): Promise<PodInterfaces> {
  try {
    const addrJson = await run(['ip', '-j', 'addr', 'show'], '');
    const names = parseLinks(addrJson)
      .map((l) => l.name)
      .filter((n) => n !== 'lo');
    const read = async (name: string): Promise<[string, PodInterface]> => {
      const routes = await run(['ip', '-j', '-4', 'route', 'show', 'dev', name], '');
      return [name, parsePodInterface(name, addrJson, routes)];
    };
    return new Map(await Promise.all(names.map(read)));
  } catch (err) {
    log.error('cannot read the Pod interfaces; the bridge binding gets no DHCP', {
      reason: errorMessage(err),
    });
    return new Map();
  }
}
