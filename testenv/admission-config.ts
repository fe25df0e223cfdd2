/**
 * kube-apiserver's admission configuration: both webhook plugins show the control plane's webhook client
 * certificate (file paths) to every webhook (the kubeconfig's `*` user), as a cluster whose webhook servers
 * check their caller is set up. Files in `<dir>`, rewritten at each start.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { KeyPair } from './pki.ts';

const admissionConfigPath = (dir: string): string => join(dir, 'admission-config.yaml');

export async function writeAdmissionConfig(dir: string, client: KeyPair): Promise<string> {
  const kubeconfig = join(dir, 'webhook-client.kubeconfig');
  const users = [{ name: '*', user: { 'client-certificate': client.cert, 'client-key': client.key } }];
  await writeFile(kubeconfig, stringify({ apiVersion: 'v1', kind: 'Config', users }), { mode: 0o600 });
  const configuration = {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'WebhookAdmissionConfiguration',
    kubeConfigFile: kubeconfig,
  };
  const plugins = ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook'].map((name) => ({
    name,
    configuration,
  }));
  const config = admissionConfigPath(dir);
  const doc = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins };
  await writeFile(config, stringify(doc), { mode: 0o600 });
  return config;
}
