/**
 * The DHCPv6 server as a process of its own, for tests that run it inside a network namespace (`nsenter --net=…
 * node --import tsx serve.ts '<input JSON>'`): it builds the masquerade configuration from the input (the
 * network, the resolv.conf text, the link), reading the link's MAC for its DUID as the launcher will, listens
 * on [::]:547 joined to ff02::1:2 on the link, says `ready` on stdout once listening, logs every answer to
 * stderr (verbosity 4) and stops on SIGTERM.
 */
import { createLogger } from '../../../kernel/log/log.ts';
import { masqueradeDhcpv6Config, type MasqueradeInput } from '../config.ts';
import { networkInterfaces } from 'node:os';
import { KvError } from '../../../kernel/errors/errors.ts';
import { startDhcpv6Server } from '../server.ts';

/** What the test passes: the masquerade input less the MAC, which is read from the link. */
export interface ServeInput extends Omit<MasqueradeInput, 'serverMac'> {
  readonly link: string;
}

/** The link's MAC, for the server's DUID (the launcher uses the masquerade bridge's fixed one). */
function interfaceMac(name: string): string {
  const mac = networkInterfaces()[name]?.[0]?.mac;
  if (mac === undefined)
    throw new KvError('KV_ERR_CONFIG', `interface ${JSON.stringify(name)} has no address`);
  return mac;
}

const input = JSON.parse(process.argv[2] ?? '{}') as ServeInput;
const config = masqueradeDhcpv6Config({ ...input, serverMac: interfaceMac(input.link) });
const log = createLogger({ component: 'dhcpv6-test-server', verbosity: 4 });
const server = await startDhcpv6Server({ config, link: input.link, log });
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
