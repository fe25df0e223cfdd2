/**
 * Hands the control plane from jest's global setup to its global teardown: both run in jest's main
 * process, but as separately loaded modules, so the handle is kept on globalThis.
 */
import type { ControlPlane } from './controlplane.ts';

declare global {
  var kubevirtTsStartedControlPlane: ControlPlane | undefined;
}

export function setStarted(cp: ControlPlane): void {
  globalThis.kubevirtTsStartedControlPlane = cp;
}

/** Returns the started control plane (once) or undefined when the setup started none. */
export function takeStarted(): ControlPlane | undefined {
  const cp = globalThis.kubevirtTsStartedControlPlane;
  globalThis.kubevirtTsStartedControlPlane = undefined;
  return cp;
}
