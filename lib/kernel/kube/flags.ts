/**
 * The kube client flags every mode shares (--kubeconfig, --context, --kube-api-qps, --kube-api-burst) and
 * their translation into loadRestConfig input.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_BURST, DEFAULT_QPS, type LoadRestConfigOptions } from './config.ts';

/** The option values commander produces for these flags (`cmd.opts<KubeFlagValues>()`). */
export interface KubeFlagValues {
  kubeconfig?: string;
  context?: string;
  kubeApiQps?: number;
  kubeApiBurst?: number;
}

function parseQps(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidArgumentError('expected a number >= 0 (0 turns the client-side limit off)');
  }
  return n;
}

function parseBurst(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number >= 1');
  return n;
}

export function addKubeFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--kubeconfig <path>',
        'kubeconfig file (default: $KUBECONFIG, then the in-cluster service account, then ~/.kube/config)',
      ),
    )
    .addOption(new Option('--context <name>', 'kubeconfig context to use (default: its current-context)'))
    .addOption(
      new Option('--kube-api-qps <qps>', 'client-side limit on requests per second to the API server')
        .argParser(parseQps)
        .default(DEFAULT_QPS),
    )
    .addOption(
      new Option('--kube-api-burst <n>', 'requests allowed at once above --kube-api-qps')
        .argParser(parseBurst)
        .default(DEFAULT_BURST),
    );
}

export function kubeFlagsToConfigOptions(
  values: Readonly<KubeFlagValues>,
  extra: Pick<LoadRestConfigOptions, 'userAgent' | 'inCluster'> = {},
): LoadRestConfigOptions {
  return {
    ...extra,
    kubeconfig: values.kubeconfig,
    context: values.context,
    qps: values.kubeApiQps,
    burst: values.kubeApiBurst,
  };
}
