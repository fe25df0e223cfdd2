/**
 * The controllers the `controller` role runs, in order. Each declares its own watches; a new controller is
 * one more entry here.
 */
import type { ControllerDefinition } from './definition.ts';
import { disruptionBudgetController } from './disruption-budget/definition.ts';
import { draStatusController } from './dra/definition.ts';
import { evacuationController } from './evacuation/definition.ts';
import { migrationController } from './migration/definition.ts';
import { nodeController } from './node/definition.ts';
import { vmController } from './vm/definition.ts';
import { vmiController } from './vmi/definition.ts';

export const CONTROLLERS: readonly ControllerDefinition[] = [
  vmController,
  vmiController,
  nodeController,
  draStatusController,
  migrationController,
  disruptionBudgetController,
  evacuationController,
];
