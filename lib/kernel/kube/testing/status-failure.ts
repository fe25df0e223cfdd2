/** Test support: awaits a call that must fail with a Kubernetes Status and returns that StatusError. */
import { StatusError } from '../../errors/errors.ts';

export async function statusFailure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected the call to fail with a Status');
}
