/** Finalizer list helpers; they never mutate their input. */
import type { KubeObject } from '../kube/types.ts';

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

export function addFinalizer(finalizers: readonly string[] | undefined, finalizer: string): string[] {
  const list = finalizers ?? [];
  return list.includes(finalizer) ? [...list] : [...list, finalizer];
}

export function removeFinalizer(finalizers: readonly string[] | undefined, finalizer: string): string[] {
  return (finalizers ?? []).filter((f) => f !== finalizer);
}
