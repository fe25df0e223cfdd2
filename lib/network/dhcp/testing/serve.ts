/**
 * The DHCP server as a process of its own, for tests that run it inside a network namespace (`nsenter --net=…
 * node --import tsx serve.ts '<config JSON>'`): it listens on 0.0.0.0:67 as the launcher will, says `ready` on
 * stdout once bound, logs every answer to stderr (verbosity 4) and stops on SIGTERM.
 */
import { createLogger } from '../../../kernel/log/log.ts';
import type { DhcpConfig } from '../config.ts';
import { startDhcpServer } from '../server.ts';

const config = JSON.parse(process.argv[2] ?? '{}') as DhcpConfig;
const log = createLogger({ component: 'dhcp-test-server', verbosity: 4 });
const server = await startDhcpServer({ config, address: '0.0.0.0', log });
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
