/**
 * A cloudInitNoCloud or cloudInitConfigDrive volume (the cloud-init part of KubeVirt's validateVolumes): at most
 * one user-data and one network-data source, each at most 2048 bytes, base64 that decodes, and at least one
 * source. KubeVirt's "not a valid base64 value" message repeats the source type after the field; kept.
 */
import type { CloudInitSource, Volume } from '../v1/volume.ts';
import { child, invalid, type Causes } from './causes.ts';

const MAX_DATA = 2048;

/** Go's base64.StdEncoding: padded, the standard alphabet; CR and LF are skipped. */
function decodedLength(text: string): number | undefined {
  const s = text.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s))
    return undefined;
  return Buffer.from(s, 'base64').length;
}

interface DataSource {
  readonly count: number;
  readonly length: number;
  readonly causes: Causes;
}

function dataSource(
  src: CloudInitSource,
  kind: 'userData' | 'networkData',
  at: string,
  type: string,
): DataSource {
  const ref = kind === 'userData' ? src.secretRef : src.networkDataSecretRef;
  const plain = src[kind] ?? '';
  const encoded = (kind === 'userData' ? src.userDataBase64 : src.networkDataBase64) ?? '';
  let count = (ref?.name ?? '') !== '' ? 1 : 0;
  let length = 0;
  const causes: Causes = [];
  if (encoded !== '') {
    count += 1;
    const decoded = decodedLength(encoded);
    if (decoded === undefined) {
      const f = child(at, type, `${kind}Base64`);
      causes.push(invalid(f, `${f}.${type}.${kind}Base64 is not a valid base64 value.`));
    }
    length = decoded ?? Buffer.from(encoded, 'base64').length;
  }
  if (plain !== '') {
    count += 1;
    length = Buffer.byteLength(plain, 'utf8');
  }
  return { count, length, causes };
}

/** The cloud-init checks of volumes[i] (`at`), or [] when it is no cloud-init volume. */
export function cloudInitCauses(volume: Volume, at: string): Causes {
  const type = volume.cloudInitNoCloud !== undefined ? 'cloudInitNoCloud' : 'cloudInitConfigDrive';
  const src = volume.cloudInitNoCloud ?? volume.cloudInitConfigDrive;
  if (src === undefined) return [];
  const f = child(at, type);
  const user = dataSource(src, 'userData', at, type);
  const network = dataSource(src, 'networkData', at, type);
  const causes: Causes = [...user.causes];
  if (user.count > 1) causes.push(invalid(f, `${f} must have only one userdatasource set.`));
  if (user.length > MAX_DATA) {
    causes.push(
      invalid(
        f,
        `${f} userdata exceeds ${MAX_DATA} byte limit. Should use UserDataSecretRef for larger data.`,
      ),
    );
  }
  causes.push(...network.causes);
  if (network.count > 1) causes.push(invalid(f, `${f} must have only one networkdata source set.`));
  if (network.length > MAX_DATA) {
    causes.push(
      invalid(
        f,
        `${f} networkdata exceeds ${MAX_DATA} byte limit. Should use NetworkDataSecretRef for larger data.`,
      ),
    );
  }
  if (user.count === 0 && network.count === 0) {
    causes.push(invalid(f, `${f} must have at least one userdatasource or one networkdatasource set.`));
  }
  return causes;
}
