/**
 * Structured logging: one JSON object per line on stderr, KubeVirt's field names
 * (level, timestamp, component, msg, plus namespace/name/kind/uid/reason when relevant).
 * Messages are constant; variable data goes into fields. Error fields (reason, err, stack) pass through
 * redactSecrets, so a credential an error message picked up never reaches a line.
 */
import { redactSecrets } from '../errors/redact.ts';

type Level = 'error' | 'warning' | 'info';
type Fields = Readonly<Record<string, unknown>>;

export interface Logger {
  info(msg: string, fields?: Fields): void;
  warning(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /** A logger that writes only when the configured verbosity is at least n (debug levels). */
  v(n: number): Logger;
  /** Whether this logger writes: `log.v(4).enabled()` asks for verbosity 4 (klog's `V(4).Enabled()`). */
  enabled(): boolean;
  with(fields: Fields): Logger;
}

type Sink = (line: string) => void;

export interface LoggerOptions {
  component: string;
  verbosity?: number;
  sink?: Sink;
  now?: () => number;
}

const stderrSink: Sink = (line) => {
  process.stderr.write(line + '\n');
};

const ERROR_KEYS: ReadonlySet<string> = new Set(['reason', 'err', 'stack']);

function errorText(value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return redactSecrets(typeof code === 'string' ? `${code}: ${value.message}` : value.message);
  }
  return typeof value === 'string' ? redactSecrets(value) : value;
}

class JsonLogger implements Logger {
  constructor(
    private readonly opts: Required<LoggerOptions>,
    private readonly fields: Fields,
    private readonly writes: boolean,
  ) {}

  private write(level: Level, msg: string, extra?: Fields): void {
    if (!this.writes) return;
    const rec: Record<string, unknown> = {
      level,
      timestamp: new Date(this.opts.now()).toISOString(),
      component: this.opts.component,
      msg,
    };
    for (const [k, v] of Object.entries({ ...this.fields, ...extra })) {
      if (v !== undefined) rec[k] = ERROR_KEYS.has(k) ? errorText(v) : v;
    }
    this.opts.sink(JSON.stringify(rec));
  }

  info(msg: string, fields?: Fields): void {
    this.write('info', msg, fields);
  }
  warning(msg: string, fields?: Fields): void {
    this.write('warning', msg, fields);
  }
  error(msg: string, fields?: Fields): void {
    this.write('error', msg, fields);
  }
  v(n: number): Logger {
    return new JsonLogger(this.opts, this.fields, this.writes && this.opts.verbosity >= n);
  }
  enabled(): boolean {
    return this.writes;
  }
  with(fields: Fields): Logger {
    return new JsonLogger(this.opts, { ...this.fields, ...fields }, this.writes);
  }
}

export function createLogger(opts: LoggerOptions): Logger {
  return new JsonLogger({ verbosity: 2, sink: stderrSink, now: () => Date.now(), ...opts }, {}, true);
}

/** A logger that drops everything (for tests that do not look at logs). */
export const nopLogger: Logger = createLogger({ component: 'nop', sink: () => undefined });

/** Collects lines in memory (for tests that assert on logs). */
export function memoryLogger(
  component = 'test',
  verbosity = 10,
): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    component,
    verbosity,
    sink: (l) => lines.push(JSON.parse(l) as Record<string, unknown>),
  });
  return { log, lines };
}
