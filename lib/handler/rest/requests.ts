/**
 * The plain HTTP routes of the REST server: the lifecycle commands and the guest-agent queries (lifecycle.ts),
 * after the VMI (404) and its launcher (500) are found; a stream route without a websocket upgrade gets the
 * upgrader's 400. Every answer is counted by route and status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { isRestError, vmiNotFound, type RestError } from './errors.ts';
import { runCommand, runQuery, type Answer } from './lifecycle.ts';
import type { RestResolver } from './resolve.ts';
import { isStreamRoute, matchRoute, type RouteName } from './routes.ts';

const MAX_BODY_BYTES = 64 * 1024;

export interface RequestContext {
  readonly resolver: RestResolver;
  readonly log: Logger;
  readonly recorder?: EventRecorder;
  answered(route: string, code: number): void;
}

function send(res: ServerResponse, a: Answer, allow?: string): void {
  if (allow !== undefined) res.setHeader('Allow', allow);
  if (a.json !== undefined) {
    res.writeHead(a.status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(a.json));
    return;
  }
  if (a.text !== undefined) res.writeHead(a.status, { 'Content-Type': 'text/plain; charset=utf-8' });
  else res.writeHead(a.status);
  res.end(a.text);
}

const answerOf = (e: RestError): Answer => ({ status: e.status, text: e.message });

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

export async function handleRequest(
  c: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const m = matchRoute(req.method ?? '', req.url ?? '');
  const reply = (route: RouteName | 'unknown', a: Answer, allow?: string): void => {
    c.answered(route, a.status);
    if (a.status >= 400)
      c.log.v(2).info('console request refused', { route, code: a.status, reason: a.text });
    send(res, a, allow);
  };
  if (!m.ok) {
    reply('unknown', { status: m.status, text: m.message }, m.allow);
    return;
  }
  const vmi = c.resolver.vmi(m.namespace, m.name);
  if (vmi === undefined) {
    reply(m.route, answerOf(vmiNotFound(m.namespace, m.name)));
    return;
  }
  if (isStreamRoute(m.route) || m.route === 'portforward') {
    // Not a websocket request: the upgrader's answer.
    reply(m.route, { status: 400, text: 'Bad Request\n' });
    return;
  }
  const launcher = await c.resolver.launcher(vmi);
  if (isRestError(launcher)) {
    reply(m.route, answerOf(launcher));
    return;
  }
  if (m.route === 'guestosinfo' || m.route === 'userlist' || m.route === 'filesystemlist') {
    reply(m.route, await runQuery(m.route, launcher));
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    reply(m.route, { status: 413, text: 'request body too large' });
    return;
  }
  reply(m.route, await runCommand({ route: m.route, vmi, launcher, body, recorder: c.recorder }));
}
