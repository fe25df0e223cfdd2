/**
 * kube-apiserver flags for the test control plane: loopback only, client-cert auth with the testenv CA,
 * the front-proxy (request-header) setup that APIService aggregation needs, a client certificate for the
 * admission webhooks it calls, and no admission plugin that depends on a controller we do not run.
 */
import type { TestEnvCerts } from './certs.ts';

export interface ApiServerArgsOptions {
  certs: TestEnvCerts;
  /** kube-apiserver's admission configuration file (its webhook client certificate). */
  admissionConfig: string;
  etcdEndpoint: string;
  port: number;
  /** The address kube-apiserver binds and advertises; 127.0.0.1 unless given. */
  address?: string;
}

const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc';

/**
 * Admission plugins that are on by default but need kube-controller-manager: ServiceAccount rejects
 * every pod until the service-account controller has made the namespace's `default` ServiceAccount.
 */
const DISABLED_ADMISSION_PLUGINS = ['ServiceAccount'];

export function apiServerArgs(o: ApiServerArgsOptions): string[] {
  const c = o.certs;
  const address = o.address ?? '127.0.0.1';
  return [
    `--etcd-servers=${o.etcdEndpoint}`,
    `--secure-port=${o.port}`,
    `--bind-address=${address}`,
    `--advertise-address=${address}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    `--client-ca-file=${c.ca.cert}`,
    `--tls-cert-file=${c.serving.cert}`,
    `--tls-private-key-file=${c.serving.key}`,
    `--service-account-key-file=${c.serviceAccount.publicKey}`,
    `--service-account-signing-key-file=${c.serviceAccount.privateKey}`,
    `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
    '--authorization-mode=Node,RBAC',
    `--requestheader-client-ca-file=${c.frontProxyCa.cert}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${c.frontProxyClient.cert}`,
    `--proxy-client-key-file=${c.frontProxyClient.key}`,
    '--enable-aggregator-routing=true',
    // The lease reconciler refuses a loopback advertise address; on loopback no Service traffic flows anyway.
    // Elsewhere it keeps the `kubernetes` Service's endpoints, which a Pod's in-cluster configuration reaches.
    ...(address === '127.0.0.1' ? ['--endpoint-reconciler-type=none'] : []),
    `--disable-admission-plugins=${DISABLED_ADMISSION_PLUGINS.join(',')}`,
    `--admission-control-config-file=${o.admissionConfig}`,
    '--allow-privileged=true',
    '--profiling=false',
    '--watch-cache-sizes=podtemplates#0',
  ];
}
