import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstanceSpec } from '../../kubevirt/index.ts';
import type { ConverterContextOptions } from './context.ts';
import { toDomain, toDomainXml } from './convert.ts';
import { testCtx, testVmi } from './testing/vmi.ts';

const withDownwardMetrics = (s: VirtualMachineInstanceSpec): void => {
  s.domain.devices.downwardMetrics = {};
};

const AGENT = { type: 'unix', target: { name: 'org.qemu.guest_agent.0', type: 'virtio' } };

describe('downward metrics channel', () => {
  it.each<[string, ((s: VirtualMachineInstanceSpec) => void)[], Partial<ConverterContextOptions>, object[]]>([
    ['not asked for: the agent channel only', [], { downwardMetricsServed: true }, [AGENT]],
    [
      'asked for on a node that serves it: after the agent channel, on a socket QEMU listens on',
      [withDownwardMetrics],
      { downwardMetricsServed: true },
      [
        AGENT,
        {
          type: 'unix',
          source: {
            mode: 'bind',
            path: '/var/run/kubevirt-private/downwardmetrics-channel/downwardmetrics.sock',
          },
          target: { name: 'org.github.vhostmd.1', type: 'virtio' },
        },
      ],
    ],
    [
      'the socket lies under the launcher root',
      [withDownwardMetrics],
      { root: '/tmp/r', downwardMetricsServed: true },
      [
        AGENT,
        {
          type: 'unix',
          source: {
            mode: 'bind',
            path: '/tmp/r/var/run/kubevirt-private/downwardmetrics-channel/downwardmetrics.sock',
          },
          target: { name: 'org.github.vhostmd.1', type: 'virtio' },
        },
      ],
    ],
  ])('%s', (_, patches, ctx, channels) => {
    expect(toDomain(testVmi(...patches), testCtx(ctx)).devices.channels).toEqual(channels);
  });

  it('is refused, naming the field, where the node does not serve it', () => {
    expect(() => toDomain(testVmi(withDownwardMetrics), testCtx())).toThrow(
      expect.objectContaining({
        field: 'spec.domain.devices.downwardMetrics',
        reason: 'unsupported',
        code: 'KV_ERR_INVALID',
        message: expect.stringMatching(/no downward metrics server/),
      }),
    );
  });

  it('is written with its source before its target', () => {
    expect(toDomainXml(testVmi(withDownwardMetrics), testCtx({ downwardMetricsServed: true }))).toContain(
      [
        '    <channel type="unix">',
        '      <source mode="bind" path="/var/run/kubevirt-private/downwardmetrics-channel/downwardmetrics.sock"/>',
        '      <target name="org.github.vhostmd.1" type="virtio"/>',
        '    </channel>',
      ].join('\n'),
    );
  });
});
