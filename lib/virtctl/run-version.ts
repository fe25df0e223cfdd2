/**
 * `version`: the client line first, always; then the server's /apis/subresources.kubevirt.io/v1/version
 * (unless --client). An unreachable server still leaves the client line printed and fails with its error.
 */
import type { Command } from 'commander';
import { SUBRESOURCES_GROUP, SUBRESOURCES_VERSION } from '../kubevirt/gvr.ts';
import { buildInfo } from '../version/version.ts';
import { CommandFailed } from './errors/failures.ts';
import type { Session } from './session.ts';
import { clientInfo, versionInfo } from './version-info.ts';

const SERVER_VERSION_PATH = `/apis/${SUBRESOURCES_GROUP}/${SUBRESOURCES_VERSION}/version`;

export async function runVersion(s: Session, cmd: Command): Promise<void> {
  const runtime = { platform: process.platform, arch: process.arch, node: process.version };
  s.out(`Client Version: ${versionInfo(clientInfo(buildInfo(), runtime))}`);
  if (cmd.opts<{ client?: boolean }>().client === true) return;
  let answer: unknown;
  try {
    answer = await s.client(cmd).call({ method: 'GET', path: SERVER_VERSION_PATH });
  } catch (err) {
    throw new CommandFailed('failed to get server version', err);
  }
  s.out(`Server Version: ${versionInfo(answer)}`);
}
