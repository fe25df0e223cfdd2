/**
 * A minimal QEMU guest-agent client over the unix socket QEMU exposes for the org.qemu.guest_agent.0
 * channel (`-chardev socket,server=on`). Commands run one at a time (the agent answers in order); every
 * call has a deadline, and after a timeout the next call resynchronises with guest-sync-delimited first.
 * Used by the guest tests to check qemu-ga without libvirt.
 */
import { randomInt } from 'node:crypto';
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { realClock } from '../../lib/kernel/clock.ts';
import type { Clock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { QGA_DELIMITER, QgaFramer } from './qga-framer.ts';
import type { QgaReply } from './qga-framer.ts';

export interface GuestAgentOptions {
  /** Deadline of each command (default 10 s). */
  timeoutMs?: number;
  clock?: Clock;
}

/** The agent answered with {"error": {class, desc}}. */
class GuestAgentCommandError extends KvError {
  readonly errorClass: string;
  constructor(command: string, errorClass: string, desc: string) {
    super('KV_ERR_INTERNAL', `guest agent ${command}: ${errorClass}: ${desc}`);
    this.errorClass = errorClass;
  }
}

interface Waiter {
  resolve(r: QgaReply): void;
  reject(err: Error): void;
}

export class GuestAgentClient {
  private readonly framer = new QgaFramer();
  private waiter: Waiter | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private needsSync = true;
  private closedError: KvError | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly timeoutMs: number,
    private readonly clock: Clock,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.onData(chunk);
    });
    socket.on('error', (err) => {
      this.fail(new KvError('KV_ERR_TRANSPORT', 'guest agent socket failed', { cause: err }));
    });
    socket.on('close', () => {
      this.fail(new KvError('KV_ERR_TRANSPORT', 'guest agent socket closed'));
    });
  }

  static async connect(path: string, o: GuestAgentOptions = {}): Promise<GuestAgentClient> {
    const socket = createConnection(path);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (err) => {
        reject(
          new KvError('KV_ERR_TRANSPORT', `cannot connect to the guest agent at ${path}`, { cause: err }),
        );
      });
    });
    return new GuestAgentClient(socket, o.timeoutMs ?? 10_000, o.clock ?? realClock);
  }

  /** Resets the agent's parser (0xFF) and discards stale replies: guest-sync-delimited with a fresh id. */
  sync(): Promise<void> {
    return this.serial(() => this.syncNow());
  }

  /** Runs a command and returns its `return` value; an agent error throws GuestAgentCommandError. */
  execute<T = unknown>(command: string, args?: Record<string, unknown>): Promise<T> {
    return this.serial(async () => {
      if (this.needsSync) await this.syncNow();
      const reply = await this.request(command, args, false);
      if ('error' in reply) throw new GuestAgentCommandError(command, reply.error.class, reply.error.desc);
      return reply.return as T;
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private async syncNow(): Promise<void> {
    const id = randomInt(1, 2 ** 31 - 1);
    const reply = await this.request('guest-sync-delimited', { id }, true);
    if (!('return' in reply) || reply.return !== id) {
      throw new KvError(
        'KV_ERR_DECODE',
        `guest-sync-delimited: expected ${id}, got ${JSON.stringify(reply)}`,
      );
    }
    this.needsSync = false;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private request(
    command: string,
    args: Record<string, unknown> | undefined,
    delimited: boolean,
  ): Promise<QgaReply> {
    if (this.closedError) return Promise.reject(this.closedError);
    const line = Buffer.from(
      `${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`,
    );
    return new Promise<QgaReply>((resolve, reject) => {
      const timer = this.clock.after(this.timeoutMs, () => {
        this.waiter = undefined;
        this.needsSync = true;
        reject(new KvError('KV_ERR_TIMEOUT', `guest agent ${command}: no reply in ${this.timeoutMs} ms`));
      });
      this.waiter = {
        resolve: (r) => {
          timer.cancel();
          resolve(r);
        },
        reject: (err) => {
          timer.cancel();
          reject(err);
        },
      };
      if (delimited) this.framer.expectDelimiter();
      this.socket.write(delimited ? Buffer.concat([Buffer.of(QGA_DELIMITER), line]) : line);
    });
  }

  private onData(chunk: Buffer): void {
    let replies: QgaReply[];
    try {
      replies = this.framer.push(chunk);
    } catch (err) {
      this.needsSync = true;
      this.take()?.reject(err instanceof Error ? err : new KvError('KV_ERR_DECODE', String(err)));
      return;
    }
    // Replies nobody waits for (late answers after a timeout) are dropped.
    for (const r of replies) this.take()?.resolve(r);
  }

  private take(): Waiter | undefined {
    const w = this.waiter;
    this.waiter = undefined;
    return w;
  }

  private fail(err: KvError): void {
    this.closedError ??= err;
    this.take()?.reject(err);
  }
}
