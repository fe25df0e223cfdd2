/**
 * A launcher gone bad, for the flood test: `node --import tsx flood-client.ts <socket> <count> <uid> <pad>` sends
 * `count` domain events over a real Notify client, 16 at a time, each with a random uid except every 1000th,
 * which names the VMI `uid`; each domain carries `pad` bytes more. Prints `{"accepted":N,"dropped":N}`.
 */
import { randomUUID } from 'node:crypto';
import { newNotifyClient } from '../../../rpc/index.ts';
import { testDomain } from '../../../rpc/testing/domain.ts';

const [socket = '', count = '0', uid = '', pad = '0'] = process.argv.slice(2);
const client = await newNotifyClient(socket);
let accepted = 0;
let dropped = 0;
let next = 0;
async function sender(): Promise<void> {
  for (let i = next++; i < Number(count); i = next++) {
    const domain = testDomain('Shutoff', 'Shutdown', (d) => {
      d.ObjectMeta.uid = i % 1000 === 0 ? uid : randomUUID();
      d.Spec.Name = `ns_v-${'x'.repeat(Number(pad))}`;
    });
    const r = await client.sendDomainEvent({ eventType: 'MODIFIED', domain });
    if (r.success) accepted++;
    else dropped++;
  }
}
await Promise.all(Array.from({ length: 16 }, sender));
client.close();
process.stdout.write(JSON.stringify({ accepted, dropped }) + '\n');
