import { describe, it } from '@jest/globals';
import { DEFAULT_CLUSTER_DEFAULTS } from '../defaults/cluster.ts';
import { GATES } from './context.ts';
import { checkSpecRow, ctxWith, inv, raw, req, type Row } from './testing/fixtures.ts';

const LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('validateVmiSpec: identity, machine, firmware, lifecycle', () => {
  it.each<Row>([
    ['a hostname and subdomain', (s) => Object.assign(s, { hostname: 'vm-1', subdomain: 'svc.example' }), []],
    [
      'a hostname that is no DNS label',
      (s) => (s.hostname = 'VM_1'),
      [
        inv(
          'spec.hostname',
          `spec.hostname does not conform to the kubernetes DNS_LABEL rules : ${LABEL_ERR}`,
        ),
      ],
    ],
    [
      'a hostname with dots',
      (s) => (s.hostname = 'vm.example'),
      [
        inv(
          'spec.hostname',
          'spec.hostname does not conform to the kubernetes DNS_LABEL rules : must not contain dots',
        ),
      ],
    ],
    [
      'a subdomain over 253 characters',
      (s) => (s.subdomain = `${'a'.repeat(60)}.`.repeat(5)),
      [
        inv(
          'spec.subdomain',
          "spec.subdomain does not conform to the kubernetes DNS_SUBDOMAIN rules : must be no more than 253 characters, a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
      ],
    ],
    ['a versioned q35 machine', (s) => (s.domain.machine = { type: 'pc-q35-rhel9.4.0' }), []],
    [
      'an i440fx machine',
      (s) => (s.domain.machine = { type: 'pc-i440fx-2.12' }),
      [
        inv(
          'spec.domain.machine.type',
          'spec.domain.machine.type is not supported: pc-i440fx-2.12 (allowed values: [q35* pc-q35*])',
        ),
      ],
    ],
    [
      'ACPI without tables',
      (s) => (s.domain.firmware = { acpi: {} }),
      [inv('spec.acpi', 'ACPI was set but no SLIC nor MSDM volume reference was set')],
    ],
    [
      'ACPI tables from a missing volume and from a configMap',
      (s) => {
        s.domain.firmware = { acpi: { slicNameRef: 'nope', msdmNameRef: 'cm' } };
        s.volumes?.push({ name: 'cm', configMap: { name: 'tables' } });
        s.domain.devices.disks?.push({ name: 'cm', disk: { bus: 'virtio' } });
      },
      [
        inv('spec.acpi.slicNameRef', 'spec.acpi does not have a matching Volume.'),
        inv('spec.acpi.msdmNameRef', 'spec.acpi refers to Volume of unsupported type.'),
      ],
    ],
    [
      'ACPI tables from a secret',
      (s) => {
        s.domain.firmware = { acpi: { slicNameRef: 'slic' } };
        s.volumes?.push({ name: 'slic', secret: { secretName: 'tables' } });
        s.domain.devices.disks?.push({ name: 'slic', disk: { bus: 'virtio' } });
      },
      [],
    ],
    [
      'an unknown start strategy',
      (s) => (s.startStrategy = raw('Later')),
      [inv('spec.startStrategy', 'spec.startStrategy is set with an unrecognized option: Later')],
    ],
    [
      'paused start with a liveness probe',
      (s) => {
        s.startStrategy = 'Paused';
        s.livenessProbe = { tcpSocket: { port: 22 } };
      },
      [
        inv(
          'spec.startStrategy',
          'either spec.startStrategy or spec.livenessProbe should be provided.Pausing VMI with LivenessProbe is not supported',
        ),
      ],
    ],
    [
      'an arm64 VMI on an amd64 virt-api',
      (s) => {
        s.architecture = 'arm64';
        s.domain.machine = { type: 'virt' };
      },
      [
        req(
          'spec.architecture',
          'MultiArchitecture feature gate is not enabled in kubevirt-config, invalid entry spec.architecture',
        ),
      ],
    ],
    [
      'an unknown eviction strategy',
      (s) => (s.evictionStrategy = raw('Migrate')),
      [inv('spec.evictionStrategy', 'spec.evictionStrategy is set with an unrecognized option: Migrate')],
    ],
    [
      'EFI and BIOS together',
      (s) => (s.domain.firmware = { bootloader: { bios: {}, efi: { secureBoot: false } } }),
      [
        inv(
          'spec.domain.firmware.bootloader',
          'spec.domain.firmware.bootloader has both EFI and BIOS configured, but they are mutually exclusive.',
        ),
      ],
    ],
    [
      'SecureBoot without SMM',
      (s) => (s.domain.firmware = { bootloader: { efi: {} } }),
      [
        inv(
          'spec.domain',
          'spec.domain has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled.',
        ),
      ],
    ],
    [
      'SecureBoot with SMM',
      (s) => {
        s.domain.firmware = { bootloader: { efi: { secureBoot: true } } };
        s.domain.features = { smm: { enabled: true } };
      },
      [],
    ],
    [
      'kernel arguments without a kernel',
      (s) => (s.domain.firmware = { kernelBoot: { kernelArgs: 'console=ttyS0' } }),
      [
        inv(
          'spec.domain.firmware.kernelBoot.kernelArgs',
          'kernel arguments cannot be provided without an external kernel',
        ),
      ],
    ],
    [
      'a kernel container without image or paths',
      (s) => (s.domain.firmware = { kernelBoot: { container: { image: '' } } }),
      [
        req(
          'spec.domain.firmware.kernelBoot.container.image',
          'spec.domain.firmware.kernelBoot.container must be defined with an image',
        ),
        req(
          'spec.domain.firmware.kernelBoot.container',
          'spec.domain.firmware.kernelBoot.container must be defined with at least one of the following: kernelPath, initrdPath',
        ),
      ],
    ],
    [
      'a relative kernel path',
      (s) => (s.domain.firmware = { kernelBoot: { container: { image: 'k', kernelPath: 'boot/vmlinuz' } } }),
      [
        inv(
          'spec.domain.firmware.kernelBoot.container.kernelPath',
          'spec.domain.firmware.kernelBoot.container.kernelPath must be an absolute path to a file without relative components',
        ),
      ],
    ],
    [
      'SEV without its gate',
      (s) => (s.domain.launchSecurity = { sev: {} }),
      [inv('spec.launchSecurity', 'WorkloadEncryptionSEV feature gate is not enabled in kubevirt-config')],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });

  it.each<Row>([
    [
      'SEV on BIOS with attestation, not paused, and a bootable NIC',
      (s) => {
        s.domain.launchSecurity = { sev: { attestation: {} } };
        const iface = s.domain.devices.interfaces?.[0];
        if (iface !== undefined) iface.bootOrder = 2;
      },
      [
        inv('spec.launchSecurity', 'SEV requires OVMF (UEFI)'),
        inv('spec.launchSecurity', "SEV attestation requires VMI StartStrategy 'Paused'"),
        inv('spec.launchSecurity', 'SEV does not work with bootable NICs: default'),
      ],
    ],
    [
      'SEV with SecureBoot',
      (s) => {
        s.domain.launchSecurity = { sev: {} };
        s.domain.firmware = { bootloader: { efi: {} } };
        s.domain.features = { smm: {} };
      },
      [inv('spec.launchSecurity', 'SEV does not work along with SecureBoot')],
    ],
  ])('%s (WorkloadEncryptionSEV on)', (_name, patch, expected) => {
    checkSpecRow(patch, expected, ctxWith([GATES.SEV]));
  });

  it('machine patterns from the cluster configuration', () => {
    checkSpecRow(
      (s) => (s.domain.machine = { type: 'pc-i440fx-2.12' }),
      [],
      ctxWith(undefined, { emulatedMachines: { amd64: ['pc-i440fx-?.*'] } }),
    );
  });

  it('the cluster eviction strategy is valid', () => {
    checkSpecRow(
      () => undefined,
      [],
      ctxWith(undefined, { cluster: { ...DEFAULT_CLUSTER_DEFAULTS, evictionStrategy: 'LiveMigrate' } }),
    );
  });
});
