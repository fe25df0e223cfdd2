// startDhcpv6Server over real UDP on the IPv6 loopback ::1, on a port the kernel picks; no multicast.
import { afterEach, describe, expect, it } from '@jest/globals';
import { createSocket, type Socket } from 'node:dgram';
import { memoryLogger, nopLogger } from '../../kernel/log/log.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { Dhcpv6ValueError } from './errors.ts';
import { decodeMessage, encodeMessage, MESSAGE_TYPE, optionData, type Dhcpv6Message } from './message.ts';
import { decodeOptions, ipv6Text, OPTION } from './options.ts';
import { fromLink, startDhcpv6Server, type Dhcpv6Server } from './server.ts';
import {
  CLIENT_DUID,
  clientIdOption,
  iaNaRequest,
  newDhcpv6Config,
  newMessage,
  RAPID_COMMIT,
} from './testing/messages.ts';

/** A client socket on ::1 that keeps what it receives. */
interface Client {
  readonly socket: Socket;
  readonly received: Dhcpv6Message[];
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function client(): Promise<Client> {
  const socket = createSocket({ type: 'udp6', ipv6Only: true });
  const received: Dhcpv6Message[] = [];
  socket.on('message', (packet) => received.push(decodeMessage(packet)));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.bind({ address: '::1', port: 0 }, resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        socket.close(() => {
          resolve();
        });
      }),
  );
  return { socket, received };
}

function send(from: Client, to: Dhcpv6Server, packet: Buffer): void {
  from.socket.send(packet, to.port, '::1');
}

const next = (c: Client, what: string): Promise<Dhcpv6Message> =>
  waitFor(() => c.received.shift(), what, { timeoutMs: 5000, intervalMs: 5 });

describe('the DHCPv6 server over loopback', () => {
  it('advertises, replies, and drops what it must not answer', async () => {
    const guest = await client();
    const { log, lines } = memoryLogger('virt-launcher');
    const server = await startDhcpv6Server({ config: newDhcpv6Config(), port: 0, log });
    cleanup.push(() => server.close());

    send(guest, server, encodeMessage(newMessage(MESSAGE_TYPE.solicit, undefined, 1)));
    const advertise = await next(guest, 'the Advertise');
    expect(advertise).toMatchObject({ type: MESSAGE_TYPE.advertise, transactionId: 1 });
    expect(optionData(advertise, OPTION.clientId)).toEqual(CLIENT_DUID);
    const iaNa = optionData(advertise, OPTION.iaNa) ?? Buffer.alloc(0);
    const [address] = decodeOptions(iaNa.subarray(12), 'IA_NA');
    expect(address && ipv6Text(address.data)).toBe('fd10:0:2::2');

    const serverId = {
      code: OPTION.serverId,
      data: optionData(advertise, OPTION.serverId) ?? Buffer.alloc(0),
    };
    const requestOptions = [clientIdOption(), serverId, iaNaRequest(0x4b560002)];
    send(guest, server, encodeMessage(newMessage(MESSAGE_TYPE.request, requestOptions, 2)));
    expect(await next(guest, 'the Reply')).toMatchObject({ type: MESSAGE_TYPE.reply, transactionId: 2 });

    send(guest, server, Buffer.from('deadbeef', 'hex').subarray(0, 3));
    send(guest, server, encodeMessage(newMessage(MESSAGE_TYPE.decline, undefined, 3)));
    send(guest, server, encodeMessage(newMessage(MESSAGE_TYPE.solicit, [iaNaRequest(1)], 4)));
    const rapid = [clientIdOption(), RAPID_COMMIT];
    send(guest, server, encodeMessage(newMessage(MESSAGE_TYPE.solicit, rapid, 5)));
    expect(await next(guest, 'the rapid-commit Reply')).toMatchObject({
      type: MESSAGE_TYPE.reply,
      transactionId: 5,
    });
    expect(guest.received).toEqual([]);

    const dropped = lines.filter((l) => l['level'] === 'warning');
    expect(dropped).toEqual([
      expect.objectContaining({ msg: 'dropped a DHCPv6 packet', problem: 'short', length: 3, from: '::1' }),
    ]);
    expect(JSON.stringify(dropped)).not.toMatch(/deadbe|de,ad/i);
    const unanswered = lines.filter((l) => l['msg'] === 'DHCPv6 message not answered');
    expect(unanswered.map((l) => l['xid'])).toEqual([3, 4]);
  });

  it('refuses a bad configuration before it listens', async () => {
    const start = startDhcpv6Server({
      config: newDhcpv6Config({ dns: ['10.96.0.10'] }),
      port: 0,
      log: nopLogger,
    });
    await expect(start).rejects.toThrow(Dhcpv6ValueError);
    await expect(start).rejects.toThrow(/^option 23: /);
  });

  it('fails to start on a link the host does not have', async () => {
    const start = startDhcpv6Server({
      config: newDhcpv6Config(),
      link: 'kvts-none0',
      port: 0,
      log: nopLogger,
    });
    await expect(start).rejects.toMatchObject({ code: 'KV_ERR_TRANSPORT' });
  });

  it('closes once, however often it is asked', async () => {
    const server = await startDhcpv6Server({ config: newDhcpv6Config(), port: 0, log: nopLogger });
    expect(server.port).toBeGreaterThan(0);
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});

describe('fromLink', () => {
  it.each<[string, string | undefined, boolean]>([
    ['::1', undefined, true],
    ['fd10:0:2::2', undefined, true],
    ['fe80::4b:56ff:fe00:2%k6t-eth0', 'k6t-eth0', true],
    ['febf::1%k6t-eth0', 'k6t-eth0', true],
    ['fe80::4b:56ff:fe00:2%eth0', 'k6t-eth0', false],
    ['fe80::4b:56ff:fe00:2', 'k6t-eth0', false],
    ['fec0::1%k6t-eth0', 'k6t-eth0', false],
    ['fd10:0:2::2', 'k6t-eth0', false],
    ['::1', 'k6t-eth0', false],
    ['fe80::1%k6t-eth0%x', 'k6t-eth0', false],
  ])('%s on link %s: %s', (source, link, expected) => {
    expect(fromLink(source, link)).toBe(expected);
  });
});
