/**
 * A sample of the fuzz test's valid VMIs (testing/generated.ts: realistic memory, vCPUs, disks on supported
 * buses), converted as `virt launcher convert` does and defined in a real libvirtd through our client
 * (testing/define-in-libvirt.ts: schema-validated define, read back, undefine): a generated domain libvirt refuses
 * fails with the VMI and libvirt's message. Seeded: the seed is printed, FUZZ_SEED=n repeats a run.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { nopLogger } from '../../kernel/log/log.ts';
import { defineAndUndefine, startDefineLibvirt, type DefineLibvirt } from './testing/define-in-libvirt.ts';
import { generatedDomains } from './testing/generated.ts';

const SAMPLE = 50;
const SEED = Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31);

let libvirt: DefineLibvirt;
beforeAll(async () => {
  libvirt = await startDefineLibvirt({ log: nopLogger });
}, 120_000);
afterAll(async () => {
  await libvirt.stop();
});

describe('generated VMIs in libvirt', () => {
  it(`defines ${SAMPLE} generated domains (FUZZ_SEED=${SEED})`, async () => {
    console.log(`generated VMIs in libvirt: FUZZ_SEED=${SEED}`);
    const cases = generatedDomains(SEED, SAMPLE);
    expect(cases).toHaveLength(SAMPLE);
    const refused: string[] = [];
    for (const [i, c] of cases.entries()) {
      await defineAndUndefine(libvirt.conn, c.xml).catch((err: unknown) => {
        refused.push(`#${i} ${String(err)}\nVMI: ${JSON.stringify(c.vmi)}`);
      });
    }
    expect(refused).toEqual([]);
  }, 600_000);
});
