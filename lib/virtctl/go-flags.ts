/**
 * Go (pflag) boolean flags for commander: `--stdio=true`, `--local-ssh=false` as well as the bare `--stdio`,
 * which KubeVirt virtctl's help and ssh's ProxyCommand use. Commander's boolean options take no `=value`,
 * and an option with an optional value would swallow the next argument, so a command of this class reads
 * `--flag=<bool>` of its own boolean options before commander parses the rest.
 */
import { Command, type ParseOptionsResult } from 'commander';
import { usageError } from './errors/failures.ts';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseBool, with pflag's message. */
export function goBool(flag: string, value: string): boolean {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw usageError(
    `invalid argument "${value}" for "${flag}" flag: strconv.ParseBool: parsing "${value}": invalid syntax (use true or false)`,
  );
}

export class GoFlagsCommand extends Command {
  override parseOptions(argv: string[]): ParseOptionsResult {
    const rest: string[] = [];
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i] ?? '';
      if (arg === '--') {
        rest.push(...argv.slice(i));
        break;
      }
      if (this.readBool(arg)) continue;
      rest.push(arg);
      const opt = this.options.find((o) => o.long === arg || o.short === arg);
      // The value of an option that takes one is never read as a flag (-c --stdio=true).
      if (opt?.required === true && i + 1 < argv.length) rest.push(argv[++i] ?? '');
    }
    return super.parseOptions(rest);
  }

  /** Sets a boolean option given as --flag=value; false when arg is not one. */
  private readBool(arg: string): boolean {
    const m = /^(--[^=]+)=(.*)$/s.exec(arg);
    if (m === null) return false;
    const [, flag = '', value = ''] = m;
    const opt = this.options.find((o) => o.long === flag && !o.required && !o.optional && !o.negate);
    if (opt === undefined) return false;
    this.setOptionValueWithSource(opt.attributeName(), goBool(flag, value), 'cli');
    return true;
  }
}
