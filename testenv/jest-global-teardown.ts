/** Jest global teardown of the integration project: stops the control plane the global setup started. */
import { takeStarted } from './jest-started.ts';

export default async function globalTeardown(): Promise<void> {
  await takeStarted()?.stop();
}
