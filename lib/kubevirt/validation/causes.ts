/**
 * What an admission validator answers: Kubernetes StatusCauses (metav1.StatusCause) with KubeVirt's field paths
 * and messages. An empty list admits the object. A cause KubeVirt sends without a field has field ''.
 */
import { childPath, indexPath } from '../field-error.ts';

/** metav1.CauseType values the KubeVirt admitters use. */
export type CauseType =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueNotFound'
  | 'FieldValueForbidden';

export interface AdmissionCause {
  readonly type: CauseType;
  readonly message: string;
  readonly field: string;
}

export type Causes = AdmissionCause[];

export const invalid = (field: string, message: string): AdmissionCause => ({
  type: 'FieldValueInvalid',
  message,
  field,
});

export const required = (field: string, message: string): AdmissionCause => ({
  type: 'FieldValueRequired',
  message,
  field,
});

export const notSupported = (field: string, message: string): AdmissionCause => ({
  type: 'FieldValueNotSupported',
  message,
  field,
});

export const duplicate = (field: string, message: string): AdmissionCause => ({
  type: 'FieldValueDuplicate',
  message,
  field,
});

export const notFound = (field: string, message: string): AdmissionCause => ({
  type: 'FieldValueNotFound',
  message,
  field,
});

/** `base` + `a`, `b`, …: field.Child("a", "b") of apimachinery's field.Path. */
export function child(base: string, ...names: string[]): string {
  return names.reduce(childPath, base);
}

/** `base` + `names` + `[i]` (field.Child(names...).Index(i)). */
export function item(base: string, names: readonly string[], i: number): string {
  return indexPath(child(base, ...names), i);
}

/** The first non-empty list of causes, or [] (KubeVirt's admitters stop at the first failing stage). */
export function firstFailing(...stages: readonly (() => Causes)[]): Causes {
  for (const stage of stages) {
    const causes = stage();
    if (causes.length > 0) return causes;
  }
  return [];
}
