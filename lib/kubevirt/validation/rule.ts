/** The shape of one VMI spec rule: the spec, what the cluster allows, and the path the spec sits at. */
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import type { Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';

export type SpecRule = (spec: VirtualMachineInstanceSpec, ctx: ValidationContext, path: string) => Causes;

/** Every rule's causes, in order. */
export function runRules(
  rules: readonly SpecRule[],
  spec: VirtualMachineInstanceSpec,
  ctx: ValidationContext,
  path: string,
): Causes {
  return rules.flatMap((rule) => rule(spec, ctx, path));
}
