import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { status } from '@grpc/grpc-js';
import { RpcTransportError, RpcVersionError } from './errors.ts';
import { newNotifyClient, type NotifyClient } from './notify-client.ts';
import { decodeDomainEvent, newNotifyServer, type DomainEvent } from './notify-server.ts';
import { podLayout } from './pod-layout.ts';
import { serve, tempRoot, type Serving, type TempRoot } from './testing/servers.ts';

const domain = { metadata: { name: 'ns1_vm1', uid: 'u1' }, status: { status: 'Running', reason: 'Booted' } };
const ok = { success: true, message: '' };

let root: TempRoot;
let sock: string;
let serving: Serving | undefined;
let client: NotifyClient | undefined;

beforeEach(async () => {
  root = await tempRoot();
  sock = podLayout(root.dir).notifySocket;
});
afterEach(async () => {
  client?.close();
  client = undefined;
  await serving?.stop();
  serving = undefined;
  await root.cleanup();
});

describe('Notify over a unix socket', () => {
  it('delivers HandleDomainEvent with domainJSON, statusJSON and eventType', async () => {
    const events: DomainEvent[] = [];
    serving = await serve(
      newNotifyServer({
        handleDomainEvent: (req) => {
          events.push(decodeDomainEvent(req));
          return Promise.resolve(ok);
        },
      }),
      sock,
    );
    client = await newNotifyClient(sock);
    expect(client.version).toBe(1);
    const failure = { kind: 'Status', status: 'Failure', message: 'qemu crashed' };
    expect(await client.sendDomainEvent({ domain, eventType: 'MODIFIED' })).toEqual(ok);
    expect(await client.sendDomainEvent({ domain, eventType: 'ERROR', status: failure })).toEqual(ok);
    expect(events).toEqual([
      { domain, status: undefined, eventType: 'MODIFIED' },
      { domain, status: failure, eventType: 'ERROR' },
    ]);
  });

  it('delivers HandleK8sEvent and returns the in-band answer', async () => {
    const received: unknown[] = [];
    serving = await serve(
      newNotifyServer({
        handleK8SEvent: (req) => {
          received.push(JSON.parse(Buffer.from(req.eventJSON).toString()));
          return Promise.resolve({ success: false, message: 'no VMI' });
        },
      }),
      sock,
    );
    client = await newNotifyClient(sock);
    const event = { kind: 'Event', reason: 'Started', message: 'VirtualMachineInstance started.' };
    expect(await client.sendK8sEvent(event)).toEqual({ success: false, message: 'no VMI' });
    expect(received).toEqual([event]);
  });

  it('answers UNIMPLEMENTED for a handler the impl leaves out', async () => {
    serving = await serve(newNotifyServer({}), sock);
    client = await newNotifyClient(sock);
    const err: unknown = await client
      .sendDomainEvent({ domain, eventType: 'ADDED' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcTransportError);
    expect(err).toMatchObject({ code: 'KV_ERR_TRANSPORT', grpcCode: status.UNIMPLEMENTED });
  });

  it('rejects a handler without Notify v1', async () => {
    serving = await serve(newNotifyServer({}, { supportedVersions: [7] }), sock);
    const err: unknown = await newNotifyClient(sock).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcVersionError);
    expect(err).toMatchObject({ serverVersions: [7], clientVersions: [1] });
  });

  it('rejects malformed event JSON with KV_ERR_DECODE', () => {
    const req = { domainJSON: Buffer.from('{'), statusJSON: Buffer.alloc(0), eventType: 'ADDED' };
    expect(() => decodeDomainEvent(req)).toThrow(expect.objectContaining({ code: 'KV_ERR_DECODE' }));
  });
});
