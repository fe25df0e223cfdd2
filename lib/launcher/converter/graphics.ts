/**
 * Display and input: unless autoattachGraphicsDevice is false, a VNC server on the VMI's unix socket
 * (`<private>/<uid>/virt-vnc`) and a video card (VGA on amd64, bochs for EFI guests when the cluster asks,
 * virtio elsewhere, or the VMI's own video type). Input devices as the VMI lists them (tablets on USB or
 * virtio); with graphics, arm64 adds a USB tablet and keyboard and s390x a virtio keyboard, and a VMI with
 * autoattachInputDevice gets a USB tablet when it lists none.
 */
import type { Input as VmiInput, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import type { ConverterContext } from './context.ts';
import { userAlias, type Input, type Video } from './domain-spec.ts';
import { ConversionError } from './errors.ts';
import { isEfi } from './firmware.ts';

const VRAM_KIB = 16384;

function video(vmi: VirtualMachineInstance, ctx: ConverterContext): Video {
  const asked = vmi.spec.domain.devices.video?.type;
  if (asked !== undefined && asked !== '') return { type: asked, heads: 1, vram: VRAM_KIB };
  if (ctx.arch !== 'amd64') return { type: 'virtio', heads: 1 };
  if (ctx.bochsForEfiGuests && isEfi(vmi)) return { type: 'bochs', heads: 1 };
  return { type: 'vga', heads: 1, vram: VRAM_KIB };
}

function input(source: VmiInput, field: string): Input {
  const bus: string = source.bus ?? 'usb';
  if (bus !== 'usb' && bus !== 'virtio')
    throw new ConversionError(`${field}.bus`, 'Input device can have only virtio or usb bus.');
  if (source.type !== 'tablet')
    throw new ConversionError(`${field}.type`, 'Input device can have only tablet type.');
  return { type: 'tablet', bus, ...(bus === 'virtio' && { model: 'virtio' }), alias: userAlias(source.name) };
}

function archInputs(vmi: VirtualMachineInstance, ctx: ConverterContext, inputs: readonly Input[]): Input[] {
  if (ctx.arch === 'arm64') {
    const tablet = inputs.some((i) => i.type === 'tablet') ? [] : [{ type: 'tablet', bus: 'usb' } as const];
    return [...tablet, { type: 'keyboard', bus: 'usb' }];
  }
  if (ctx.arch === 's390x') return [{ type: 'keyboard', bus: 'virtio' }];
  const autoTablet = vmi.spec.domain.devices.autoattachInputDevice === true && inputs.length === 0;
  return autoTablet ? [{ type: 'tablet', bus: 'usb', alias: userAlias('default-0') }] : [];
}

export const graphicsConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const inputs = (vmi.spec.domain.devices.inputs ?? []).map((i, n) =>
    input(i, `spec.domain.devices.inputs[${n}]`),
  );
  domain.devices.inputs.push(...inputs);
  if (vmi.spec.domain.devices.autoattachGraphicsDevice === false) return;
  domain.devices.video.push(video(vmi, ctx));
  domain.devices.graphics.push({ type: 'vnc', socket: ctx.layout.vncSocket(vmi.metadata.uid ?? '') });
  domain.devices.inputs.push(...archInputs(vmi, ctx, inputs));
});
