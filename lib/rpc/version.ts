/** Protocol version negotiation (kubevirt pkg/handler-launcher-com/common.go). Pure. */
import { RpcVersionError } from './errors.ts';

/** The only Cmd version there is (kubevirt cmd/v1/version.go CmdVersion). */
export const CMD_VERSION = 1;
/** The only Notify version there is (kubevirt notify/v1/version.go NotifyVersion). */
export const NOTIFY_VERSION = 1;

/** The highest version both sides support; RpcVersionError when there is none. */
export function highestCompatibleVersion(
  service: string,
  serverVersions: readonly number[],
  clientVersions: readonly number[],
): number {
  const common = serverVersions.filter((v) => clientVersions.includes(v));
  if (common.length === 0) {
    throw new RpcVersionError(service, serverVersions, clientVersions);
  }
  return Math.max(...common);
}
