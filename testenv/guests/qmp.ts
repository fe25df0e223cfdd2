/**
 * One-shot QMP client for the test guests booted by qemu-direct.ts: connects to QEMU's QMP unix socket,
 * leaves capabilities negotiation and runs one command (e.g. system_powerdown, the ACPI power button).
 */
import { createConnection } from 'node:net';
import { KvError } from '../../lib/kernel/errors/errors.ts';

interface QmpMessage {
  QMP?: unknown;
  return?: unknown;
  error?: { class: string; desc: string };
  event?: string;
}

/** Runs `command` over the QMP socket at path and resolves its `return` value. */
export function qmpExecute(path: string, command: string, timeoutMs = 10_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const fail = (err: Error): void => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(timeoutMs, () => {
      fail(new KvError('KV_ERR_TIMEOUT', `QMP ${command}: no answer after ${timeoutMs} ms`));
    });
    socket.on('error', (err) => {
      fail(new KvError('KV_ERR_INTERNAL', `QMP ${command}: ${err.message}`, { cause: err }));
    });
    const steps = ['qmp_capabilities', command];
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buffered.slice(0, nl)) as QmpMessage;
        buffered = buffered.slice(nl + 1);
        if (msg.error !== undefined) {
          fail(new KvError('KV_ERR_INTERNAL', `QMP ${command}: ${msg.error.class}: ${msg.error.desc}`));
          return;
        }
        if (msg.event !== undefined) continue;
        if (msg.QMP === undefined && steps.shift() === command) {
          socket.end();
          resolve(msg.return);
          return;
        }
        socket.write(`${JSON.stringify({ execute: steps[0] })}\n`);
      }
    });
  });
}
