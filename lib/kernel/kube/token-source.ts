/**
 * Bearer tokens for the client. A file token (the projected service-account token, which the kubelet
 * rotates) is re-read once its cached copy is older than the refresh interval, or after the server
 * answered 401, like client-go's cached file token source. A token that cannot go into a header (a line
 * break inside) is refused without being quoted.
 */
import { readFile } from 'node:fs/promises';
import type { Clock } from '../clock.ts';
import { KvError, errorMessage } from '../errors/errors.ts';

/** Control characters (a line break above all) would end or split the Authorization header. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Throws KV_ERR_CONFIG, naming `what` and never the token, when the token cannot go into a header. */
export function checkHeaderToken(token: string, what: string): void {
  if (hasControl(token)) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `${what}: holds characters an HTTP header cannot carry (a line break or another control character): ` +
        'write the token on one line',
    );
  }
}

export interface TokenSource {
  /** The token to send now; undefined sends no Authorization header. */
  token(): Promise<string | undefined>;
  /** Drops a cached token (after a 401), so the next call reads it again. */
  invalidate(): void;
}

export function staticTokenSource(token: string | undefined): TokenSource {
  return { token: () => Promise.resolve(token), invalidate: (): void => undefined };
}

export interface FileTokenSourceOptions {
  clock: Clock;
  /** Default 60 s. */
  refreshMs?: number;
  read?: (path: string) => Promise<string>;
}

export class FileTokenSource implements TokenSource {
  private cached: string | undefined;
  private readAt = 0;
  private inFlight: Promise<string> | undefined;
  private readonly clock: Clock;
  private readonly refreshMs: number;
  private readonly read: (path: string) => Promise<string>;

  constructor(
    private readonly path: string,
    opts: FileTokenSourceOptions,
  ) {
    this.clock = opts.clock;
    this.refreshMs = opts.refreshMs ?? 60_000;
    this.read = opts.read ?? ((p): Promise<string> => readFile(p, 'utf8'));
  }

  async token(): Promise<string> {
    if (this.cached !== undefined && this.clock.now() - this.readAt < this.refreshMs) return this.cached;
    this.inFlight ??= this.reload().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  invalidate(): void {
    this.readAt = Number.NEGATIVE_INFINITY;
  }

  private async reload(): Promise<string> {
    let token: string;
    try {
      token = (await this.read(this.path)).trim();
    } catch (err) {
      // A rotation in progress can briefly hide the file: keep using the token we had.
      if (this.cached !== undefined) return this.cached;
      throw new KvError('KV_ERR_CONFIG', `cannot read token file ${this.path}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    checkHeaderToken(token, `token file ${this.path}`);
    this.cached = token;
    this.readAt = this.clock.now();
    return token;
  }
}
