/**
 * A serial relay in a process of its own, so a test can read its memory from /proc:
 *   node --import tsx lib/launcher/serial/testing/relay-process.ts <public socket> <QEMU's serial socket>
 * Prints `ready` on stdout once attached; logs (JSON lines) go to stderr; SIGTERM closes it.
 */
import { createLogger } from '../../../kernel/log/log.ts';
import { SerialRelay } from '../relay.ts';

const [publicPath, upstreamPath] = process.argv.slice(2);
if (publicPath === undefined || upstreamPath === undefined) {
  process.stderr.write('usage: relay-process.ts <public socket> <QEMU serial socket>\n');
  process.exit(2);
}
const relay = await SerialRelay.listen({ publicPath, log: createLogger({ component: 'relay-test' }) });
await relay.attach(upstreamPath);
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void relay.close().then(() => process.exit(0));
});
