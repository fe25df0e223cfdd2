/**
 * A stand-in for qemu-pr-helper in tests: a node script that takes `-k <socket>`, listens there (after
 * listenAfterMs), appends its PID to `<dir>/pids` and exits on SIGTERM, unlinking the socket as the real one does.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface FakeHelper {
  readonly binary: string;
  /** The PIDs of every helper started, oldest first. */
  pids(): Promise<number[]>;
}

export async function writeFakeHelper(dir: string, o: { listenAfterMs?: number } = {}): Promise<FakeHelper> {
  const binary = join(dir, 'fake-pr-helper');
  const pidsFile = join(dir, 'pids');
  const script = `#!${process.execPath}
const { appendFileSync, unlinkSync } = require('node:fs');
const { createServer } = require('node:net');
const socket = process.argv[process.argv.indexOf('-k') + 1];
appendFileSync(${JSON.stringify(pidsFile)}, process.pid + '\\n');
const server = createServer((c) => c.end());
setTimeout(() => server.listen(socket, () => console.log('listening on', socket)), ${o.listenAfterMs ?? 0});
process.on('SIGTERM', () => {
  try { unlinkSync(socket); } catch {}
  process.exit(0);
});
`;
  await writeFile(binary, script);
  await chmod(binary, 0o755);
  return {
    binary,
    pids: async () =>
      (await readFile(pidsFile, 'utf8').catch(() => ''))
        .split('\n')
        .filter((l) => l !== '')
        .map(Number),
  };
}
