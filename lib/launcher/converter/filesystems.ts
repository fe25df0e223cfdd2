/**
 * virtiofs filesystems (kubevirt converter/virtiofs.go convertFileSystems): one `<filesystem type="mount">` per
 * VMI filesystem, QEMU talking vhost-user to the virtiofsd of the launcher Pod's `virtiofs-<name>` container
 * through `<layout.virtiofsDir>/<name>.sock`; the shared memfd memory this needs is memory-backing.ts'.
 *
 * Where KubeVirt's XML is not libvirt's schema it is written as the schema says (what libvirt makes of
 * KubeVirt's): `accessmode` (KubeVirt writes `accessMode`, which libvirt ignores: passthrough is the default)
 * and no `dir=""` beside the socket.
 *
 * Rendered only when the context says the Pod serves the sockets (ConverterContext.virtiofsServed: the Pod has
 * the socket directory, which the controller renders only with the virtiofsd containers); otherwise refused.
 */
import path from 'node:path';
import { configurator, type Configurator } from './configurator.ts';
import { ConversionError } from './errors.ts';

/** Virtqueue size KubeVirt gives every virtiofs device. */
const VIRTIOFS_QUEUE = 1024;

export const filesystemsConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const list = vmi.spec.domain.devices.filesystems ?? [];
  if (list.length === 0) return;
  if (!ctx.virtiofsServed) {
    throw new ConversionError(
      'spec.domain.devices.filesystems',
      'not served in this launcher Pod: it has no virtiofsd containers (the controller renders them only ' +
        'with a virtiofsd in the launcher image, its --virtiofsd flag)',
      'unsupported',
    );
  }
  domain.devices.filesystems = list.map((fs) => ({
    // kubevirt virtiofs.VirtioFSSocketPath
    socket: path.join(ctx.layout.virtiofsDir, `${fs.name}.sock`),
    target: fs.name,
    queue: VIRTIOFS_QUEUE,
  }));
});
