import { describe, it } from '@jest/globals';
import { DEFAULT_CLUSTER_DEFAULTS } from '../defaults/cluster.ts';
import { checkSpecRow, ctxWith, inv, type Row } from './testing/fixtures.ts';

const REQ = 'spec.domain.resources.requests';
const LIM = 'spec.domain.resources.limits';

describe('validateVmiSpec: memory and CPU amounts', () => {
  it.each<Row>([
    ['a valid spec', () => undefined, []],
    [
      'negative memory request',
      (s) => (s.domain.resources = { requests: { memory: '-1Gi' } }),
      [inv(`${REQ}.memory`, `${REQ}.memory '-1Gi': must be greater than or equal to 0.`)],
    ],
    [
      'memory request below 1M',
      (s) => {
        s.domain.resources = { requests: { memory: '512Ki' } };
        delete s.domain.memory;
      },
      [inv(`${REQ}.memory`, `${REQ}.memory '512Ki': must be greater than or equal to 1M.`)],
    ],
    [
      'negative memory limit',
      (s) => (s.domain.resources = { requests: { memory: '1Gi' }, limits: { memory: '-2Gi' } }),
      [inv(`${LIM}.memory`, `${LIM}.memory '-2Gi': must be greater than or equal to 0.`)],
    ],
    [
      'memory request above the limit',
      (s) => (s.domain.resources = { requests: { memory: '2048Mi' }, limits: { memory: '1Gi' } }),
      [inv(`${REQ}.memory`, `${REQ}.memory '2Gi' is greater than ${LIM}.memory '1Gi'`)],
    ],
    [
      'hugepage size that is no quantity',
      (s) => (s.domain.memory = { guest: '1Gi', hugepages: { pageSize: '2MB' } }),
      [
        inv(
          'spec.domain.hugepages.size',
          "spec.domain.hugepages.size '2MB': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
      ],
    ],
    [
      'memory below one hugepage',
      (s) => {
        s.domain.resources = { requests: { memory: '1Mi' } };
        s.domain.memory = { guest: '1Mi', hugepages: { pageSize: '2Mi' } };
      },
      [
        inv(
          `${REQ}.memory`,
          `${REQ}.memory '1Mi' must be equal to or larger than page size spec.domain.hugepages.size '2Mi'`,
        ),
      ],
    ],
    [
      'memory not a multiple of the hugepage size',
      (s) => {
        s.domain.resources = { requests: { memory: '3Mi' } };
        s.domain.memory = { guest: '3Mi', hugepages: { pageSize: '2Mi' } };
      },
      [
        inv(
          `${REQ}.memory`,
          `${REQ}.memory '3Mi' is not a multiple of the page size spec.domain.hugepages.size '2Mi'`,
        ),
      ],
    ],
    [
      'negative CPU request',
      (s) => (s.domain.resources = { requests: { memory: '1Gi', cpu: '-500m' } }),
      [inv(`${REQ}.cpu`, `${REQ}.cpu '-500m': must be greater than or equal to 0.`)],
    ],
    [
      'negative CPU limit',
      (s) => (s.domain.resources = { requests: { memory: '1Gi' }, limits: { cpu: '-1' } }),
      [inv(`${LIM}.cpu`, `${LIM}.cpu '-1': must be greater than or equal to 0.`)],
    ],
    [
      'CPU request above the limit',
      (s) => (s.domain.resources = { requests: { memory: '1Gi', cpu: '1500m' }, limits: { cpu: '1' } }),
      [inv(`${REQ}.cpu`, `${REQ}.cpu '1500m' is greater than ${LIM}.cpu '1'`)],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });

  it.each<Row>([
    [
      'guest within the limit',
      (s) => (s.domain.resources = { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } }),
      [],
    ],
    [
      'guest above the limit (Stage rollout)',
      (s) => {
        s.domain.resources = { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } };
        s.domain.memory = { guest: '2Gi' };
      },
      [
        inv(
          'spec.domain.memory.guest',
          `spec.domain.memory.guest '2Gi' must be equal to or less than the memory limit ${LIM}.memory '1Gi'`,
        ),
      ],
    ],
  ])('%s', (_name, patch, expected) => {
    const ctx = ctxWith(undefined, {
      cluster: { ...DEFAULT_CLUSTER_DEFAULTS, vmRolloutStrategy: 'Stage' },
    });
    checkSpecRow(patch, expected, ctx);
  });

  it('guest above the limit passes under LiveUpdate (KubeVirt skips the check)', () => {
    checkSpecRow((s) => {
      s.domain.resources = { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } };
      s.domain.memory = { guest: '2Gi' };
    }, []);
  });
});
