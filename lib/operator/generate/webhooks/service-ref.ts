/**
 * What the webhook configurations and the APIServices share: the Service reference kube-apiserver calls, and
 * the CA bundle it checks that Service's certificate with (KubeVirt's apply/admissionregistration.go and
 * apply/apiservices.go set the bundle on the generated objects).
 */
import { KvError } from '../../../kernel/errors/errors.ts';

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

/** The Secret whose certificate the object's caBundle must trust (KubeVirt's annotation, for the reader). */
export const CERTIFICATES_SECRET_ANNOTATION = 'certificates.kubevirt.io/secret';

/**
 * The PEM bundle as the API's caBundle field (base64). An empty one is refused: kube-apiserver would check
 * the Service with the system roots and fail every call.
 */
export function caBundleBase64(pem: string): string {
  if (pem.trim() === '')
    throw new KvError('KV_ERR_CONFIG', 'the CA bundle for the webhooks and APIServices is empty');
  return Buffer.from(pem, 'utf8').toString('base64');
}
