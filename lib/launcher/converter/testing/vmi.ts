/** Test helpers: a convertible VMI from option builders, a context, and one configurator run on its own. */
import type { VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { newVmi, type SpecOption } from '../../../kubevirt/testing/builders.ts';
import type { Configurator } from '../configurator.ts';
import { converterContext, type ConverterContext, type ConverterContextOptions } from '../context.ts';
import { emptyDomain, type DomainSpec } from '../domain-spec.ts';

export const TEST_UID = '6a1f0b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b';

/** A VMI with a uid and 64Mi of memory, then the options applied in order. */
export function testVmi(...opts: SpecOption[]): VirtualMachineInstance {
  const vmi = newVmi(
    (spec) => {
      spec.domain.memory = { guest: '64Mi' };
    },
    ...opts,
  );
  vmi.metadata.uid = TEST_UID;
  return vmi;
}

export function testCtx(opts: Partial<ConverterContextOptions> = {}): ConverterContext {
  return converterContext({ root: '/', arch: 'amd64', emulation: false, ...opts });
}

/** The domain one configurator makes from an empty one. */
export function runConfigurator(
  c: Configurator,
  vmi: VirtualMachineInstance,
  ctx: ConverterContext = testCtx(),
): DomainSpec {
  const domain = emptyDomain();
  c.configure(vmi, domain, ctx);
  return domain;
}
