/**
 * addvolume and removevolume: the source looked up as virtctl does (a DataVolume of that name, else a PVC),
 * the request sent to the VM and, when there is no VM, to the VMI; a request that lost a race with another
 * change of the same spec is sent again (15 attempts, a few milliseconds apart).
 */
import type { Command } from 'commander';
import { isNotFound } from '../../kernel/errors/errors.ts';
import { DRY_RUN_LINE, type ApiCall } from '../api-call.ts';
import type { VirtctlClient } from '../client.ts';
import { CommandFailed, RequestFailed } from '../errors/failures.ts';
import type { Session } from '../session.ts';
import {
  VOLUME_ATTEMPTS,
  addVolumeBody,
  addedLine,
  checkAddVolumeFlags,
  isConcurrentChange,
  notAVolumeMessage,
  removeVolumeBody,
  removedLine,
  volumeCalls,
  type AddVolumeFlags,
  type VolumeSourceKind,
} from './volumes.ts';

interface VolumeCliFlags extends AddVolumeFlags {
  readonly persist?: boolean;
}

const causeOf = (err: unknown): unknown => (err instanceof RequestFailed ? err.cause : err);

async function sourceKind(client: VirtctlClient, volume: string): Promise<VolumeSourceKind> {
  const ns = encodeURIComponent(client.namespace);
  const name = encodeURIComponent(volume);
  try {
    await client.call({
      method: 'GET',
      path: `/apis/cdi.kubevirt.io/v1beta1/namespaces/${ns}/datavolumes/${name}`,
    });
    return 'dataVolume';
  } catch {
    // not a DataVolume (or no CDI here): try a PVC
  }
  try {
    await client.call({ method: 'GET', path: `/api/v1/namespaces/${ns}/persistentvolumeclaims/${name}` });
    return 'persistentVolumeClaim';
  } catch (err) {
    if (isNotFound(causeOf(err))) throw new CommandFailed(notAVolumeMessage(volume), err);
    throw err;
  }
}

/** The VM's call, and the VMI's when there is no VM. */
async function vmThenVmi(client: VirtctlClient, calls: { vm: ApiCall; vmi: ApiCall }): Promise<void> {
  try {
    await client.call(calls.vm);
  } catch (err) {
    if (!isNotFound(causeOf(err))) throw err;
    await client.call(calls.vmi);
  }
}

/** Sent again while the spec changes under it, a few milliseconds apart. */
async function sendVolumeCall(
  s: Session,
  client: VirtctlClient,
  calls: { vm: ApiCall; vmi: ApiCall },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await vmThenVmi(client, calls);
      return;
    } catch (err) {
      if (!isConcurrentChange(causeOf(err)) || attempt >= VOLUME_ATTEMPTS) throw err;
      await s.clock.sleep(attempt * Math.floor(Math.random() * 5));
    }
  }
}

export async function runAddVolume(s: Session, cmd: Command, name: string): Promise<void> {
  const f = cmd.opts<VolumeCliFlags>();
  checkAddVolumeFlags(f);
  const client = s.client(cmd);
  if (f.dryRun === true) s.out(DRY_RUN_LINE);
  const kind = await sourceKind(client, f.volumeName);
  const calls = volumeCalls({ namespace: client.namespace, name }, 'addvolume', addVolumeBody(f, kind));
  try {
    await sendVolumeCall(s, client, calls);
  } catch (err) {
    throw new CommandFailed('error adding volume', err);
  }
  s.out(addedLine(name, f.volumeName));
}

export async function runRemoveVolume(s: Session, cmd: Command, name: string): Promise<void> {
  const f = cmd.opts<VolumeCliFlags>();
  const client = s.client(cmd);
  if (f.dryRun === true) s.out(DRY_RUN_LINE);
  const body = removeVolumeBody(f.volumeName, f.dryRun);
  try {
    await sendVolumeCall(s, client, volumeCalls({ namespace: client.namespace, name }, 'removevolume', body));
  } catch (err) {
    throw new CommandFailed('error removing volume', err);
  }
  s.out(removedLine(name, f.volumeName));
}
