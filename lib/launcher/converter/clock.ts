/**
 * `<clock>`: UTC with an offset in seconds (or reset to the host's time), or a named time zone, and the
 * timers in KubeVirt's order: rtc, pit, kvmclock, hpet, hypervclock (kubevirt Convert_v1_Clock_To_api_Clock).
 * A clock that names neither is UTC (KubeVirt writes no offset, which libvirt refuses).
 */
import type { Clock as VmiClock } from '../../kubevirt/index.ts';
import { configurator, yesNo, type Configurator } from './configurator.ts';
import type { Clock, Timer } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

function timers(timer: NonNullable<VmiClock['timer']>): Timer[] {
  const out: Timer[] = [];
  const { rtc, pit, kvm, hpet, hyperv } = timer;
  if (rtc !== undefined) {
    out.push({
      name: 'rtc',
      ...(rtc.tickPolicy !== undefined && { tickPolicy: rtc.tickPolicy }),
      present: yesNo(rtc.present, true),
      ...(rtc.track !== undefined && { track: rtc.track }),
    });
  }
  if (pit !== undefined) {
    out.push({
      name: 'pit',
      ...(pit.tickPolicy !== undefined && { tickPolicy: pit.tickPolicy }),
      present: yesNo(pit.present, true),
    });
  }
  if (kvm !== undefined) out.push({ name: 'kvmclock', present: yesNo(kvm.present, true) });
  if (hpet !== undefined) {
    out.push({
      name: 'hpet',
      ...(hpet.tickPolicy !== undefined && { tickPolicy: hpet.tickPolicy }),
      present: yesNo(hpet.present, true),
    });
  }
  if (hyperv !== undefined) out.push({ name: 'hypervclock', present: yesNo(hyperv.present, true) });
  return out;
}

function offset(clock: VmiClock): Omit<Clock, 'timers'> {
  if (clock.utc !== undefined) {
    const seconds = clock.utc.offsetSeconds;
    if (seconds !== undefined && !Number.isInteger(seconds)) {
      throw new ConversionError('spec.domain.clock.utc.offsetSeconds', 'must be a whole number of seconds');
    }
    return { offset: 'utc', adjustment: seconds === undefined ? 'reset' : String(seconds) };
  }
  if (clock.timezone !== undefined && clock.timezone !== '') {
    return { offset: 'timezone', timezone: clock.timezone };
  }
  // Neither: UTC, libvirt's own default (libvirt refuses a <clock> without an offset).
  return { offset: 'utc' };
}

export const clockConfigurator: Configurator = configurator((vmi, domain) => {
  const clock = vmi.spec.domain.clock;
  if (clock === undefined) return;
  domain.clock = { ...offset(clock), timers: clock.timer === undefined ? [] : timers(clock.timer) };
});
