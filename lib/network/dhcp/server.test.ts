// startDhcpServer over real UDP on 127.0.0.1 and 127.0.0.2, high ports the kernel picks.
import { afterEach, describe, expect, it } from '@jest/globals';
import { createSocket, type Socket } from 'node:dgram';
import { memoryLogger, nopLogger } from '../../kernel/log/log.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { DhcpValueError } from './errors.ts';
import { decodeMessage, encodeMessage, type DhcpMessage } from './message.ts';
import { MESSAGE_TYPE, OPTION } from './options.ts';
import { messageTypeOf } from './reply.ts';
import { startDhcpServer, type DhcpServer } from './server.ts';
import { addressOption, newDhcpConfig, newRequest } from './testing/messages.ts';

/** A client socket on a loopback address that keeps what it receives. */
interface Client {
  readonly socket: Socket;
  readonly port: number;
  readonly received: DhcpMessage[];
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function client(address: string, port = 0): Promise<Client> {
  const socket = createSocket({ type: 'udp4', reuseAddr: true });
  const received: DhcpMessage[] = [];
  socket.on('message', (packet) => received.push(decodeMessage(packet)));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.bind({ address, port }, resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        socket.close(() => {
          resolve();
        });
      }),
  );
  return { socket, port: socket.address().port, received };
}

function send(from: Client, to: DhcpServer, packet: Buffer): void {
  from.socket.send(packet, to.port, '127.0.0.1');
}

const next = (c: Client, what: string): Promise<DhcpMessage> =>
  waitFor(() => c.received.shift(), what, { timeoutMs: 5000, intervalMs: 5 });

describe('the DHCP server over loopback', () => {
  it('offers, acknowledges, renews by unicast and drops what it must not answer', async () => {
    // Broadcast replies go to 127.0.0.1, the guest's own address is 127.0.0.2: one client socket on each.
    const broadcast = await client('127.0.0.1');
    const unicast = await client('127.0.0.2', broadcast.port);
    const { log, lines } = memoryLogger('virt-launcher');
    const config = newDhcpConfig({
      clientIp: '127.0.0.2',
      prefixLength: 8,
      gateway: '127.0.0.1',
      serverIp: '127.0.0.1',
      broadcastAddress: '127.0.0.1',
    });
    const server = await startDhcpServer({
      config,
      address: '127.0.0.1',
      port: 0,
      clientPort: broadcast.port,
      log,
    });
    cleanup.push(() => server.close());

    send(
      broadcast,
      server,
      encodeMessage(newRequest(MESSAGE_TYPE.discover, [], { xid: 1, broadcast: true })),
    );
    const offer = await next(broadcast, 'the OFFER');
    expect(offer).toMatchObject({ xid: 1, yiaddr: '127.0.0.2', chaddr: config.clientMac });
    expect(messageTypeOf(offer)).toBe(MESSAGE_TYPE.offer);

    const selecting = [
      addressOption(OPTION.requestedAddress, offer.yiaddr),
      addressOption(OPTION.serverIdentifier, '127.0.0.1'),
    ];
    send(broadcast, server, encodeMessage(newRequest(MESSAGE_TYPE.request, selecting, { xid: 2 })));
    const ack = await next(broadcast, 'the ACK');
    expect(ack).toMatchObject({ xid: 2, yiaddr: '127.0.0.2' });
    expect(messageTypeOf(ack)).toBe(MESSAGE_TYPE.ack);

    send(
      broadcast,
      server,
      encodeMessage(newRequest(MESSAGE_TYPE.request, [], { xid: 3, ciaddr: '127.0.0.2' })),
    );
    expect(await next(unicast, 'the renewal ACK')).toMatchObject({ xid: 3, ciaddr: '127.0.0.2' });

    send(broadcast, server, Buffer.from('deadbeef', 'hex'));
    send(
      broadcast,
      server,
      encodeMessage(newRequest(MESSAGE_TYPE.discover, [], { xid: 4, chaddr: '02:00:00:00:00:99' })),
    );
    send(
      broadcast,
      server,
      encodeMessage(newRequest(MESSAGE_TYPE.release, [], { xid: 5, ciaddr: '127.0.0.2' })),
    );
    send(broadcast, server, encodeMessage(newRequest(MESSAGE_TYPE.discover, [], { xid: 6 })));
    expect((await next(broadcast, 'the second OFFER')).xid).toBe(6);
    expect(broadcast.received).toEqual([]);
    expect(unicast.received).toEqual([]);

    const dropped = lines.filter((l) => l['level'] === 'warning');
    expect(dropped).toEqual([
      expect.objectContaining({
        msg: 'dropped a DHCP packet',
        problem: 'short',
        length: 4,
        from: '127.0.0.1',
      }),
    ]);
    expect(JSON.stringify(dropped)).not.toMatch(/deadbeef|de,ad/i);
    expect(lines.filter((l) => l['msg'] === 'DHCP request not answered').map((l) => l['xid'])).toEqual([
      4, 5,
    ]);
  });

  it('refuses a bad configuration before it listens', async () => {
    const start = startDhcpServer({
      config: newDhcpConfig({ searchDomains: ['foo,com'] }),
      address: '127.0.0.1',
      port: 0,
      log: nopLogger,
    });
    await expect(start).rejects.toThrow(DhcpValueError);
    await expect(start).rejects.toThrow(/^option 119: /);
  });

  it('fails to start on an address the host does not have', async () => {
    const start = startDhcpServer({ config: newDhcpConfig(), address: '192.0.2.1', port: 0, log: nopLogger });
    await expect(start).rejects.toMatchObject({ code: 'KV_ERR_TRANSPORT' });
  });

  it('closes once, however often it is asked', async () => {
    const server = await startDhcpServer({
      config: newDhcpConfig(),
      address: '127.0.0.1',
      port: 0,
      log: nopLogger,
    });
    expect(server.port).toBeGreaterThan(0);
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});
