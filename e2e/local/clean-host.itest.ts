/**
 * `up --nodes 2` then `down` leaves the host exactly as it was (the second node's namespaces included): no process, mount, link, iptables chain or table,
 * nft table, nfacct counter, cgroup dir or outside path of ours remains, and no watched sysctl changed,
 * neither while the cluster runs (the kubelet and kube-proxy would write several) nor after. While it is
 * up, forwarding is off and our drop/reject chains are in place. Needs the local cluster to be down at
 * the start (it brings its own up in the default stack dir, or KV_LOCAL_CLUSTER_DIR; one an earlier file of the
 * run left up for the next is taken down first).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '../../lib/kernel/log/log.ts';
import { down, status, up } from './cluster.ts';
import { CHAINS, NETWORK } from './layout.ts';
import { HOST_VETH } from './second-node.ts';
import { downIfKept, testStackDir } from './testing/cluster.ts';
import { hostSnapshot } from './testing/host-snapshot.ts';

const dir = testStackDir();
const log = createLogger({ component: 'local-cluster-test' });
let brought = false;

afterAll(async () => {
  if (brought) await down({ dir, log });
}, 300_000);

describe('local cluster on a clean host', () => {
  it('up changes no sysctl and down leaves nothing behind', async () => {
    // A cluster an earlier file of this run left up for the next is this run's own to take down.
    await downIfKept(dir, log);
    const st = await status(dir);
    if (st?.ready === true || st?.bridge === true) {
      throw new Error(`the local cluster in ${dir} is up: run \`npm run local -- down\` before this test`);
    }
    const before = await hostSnapshot(dir);
    brought = true;
    const r = await up({ dir, log, nodes: 2 });
    expect(r.alreadyUp).toBe(false);
    expect(r.status.ready).toBe(true);
    expect(r.status.secondNode?.ready).toBe(true);
    const during = await hostSnapshot(dir);
    expect(during.sysctls).toEqual(before.sysctls);
    expect(during.sysctls['net/ipv4/ip_forward']).toBe('0');
    expect(during.links).toContain(NETWORK.bridge);
    expect(during.links).toContain(`${HOST_VETH}@if2`);
    expect(during.iptables).toEqual(
      expect.arrayContaining([
        `ip -A FORWARD -j ${CHAINS.forward}`,
        `ip -A ${CHAINS.forward} -i ${NETWORK.bridge} -j DROP`,
        `ip -A ${CHAINS.forward} -o ${NETWORK.bridge} -j DROP`,
        `ip -A ${CHAINS.output} -d ${NETWORK.serviceCidr} -j REJECT --reject-with icmp-net-unreachable`,
      ]),
    );
    expect(during.processes.length).toBeGreaterThanOrEqual(7);
    const again = await up({ dir, log, nodes: 2 });
    expect(again.alreadyUp).toBe(true);
    await down({ dir, log });
    brought = false;
    const after = await hostSnapshot(dir);
    expect(after).toEqual(before);
  }, 1_500_000);
});
