import { describe, expect, it } from '@jest/globals';
import { fieldMessage } from '../field-error.ts';
import { vmiSpec } from '../v1/vmi-spec.ts';
import { s } from './dsl.ts';
import { validateAgainstSchema } from './validate.ts';

const disk = s.object({
  name: s.string().required(),
  bus: s.enum(['virtio', 'sata']),
  bootOrder: s.uint(),
});

const thing = s.object({
  name: s.string().required(),
  cores: s.uint32(),
  port: s.int('int32'),
  size: s.int('int64'),
  count: s.int(),
  ratio: s.number(),
  on: s.bool(),
  memory: s.quantity(),
  requests: s.map(s.quantity({ nonNegative: true })),
  labels: s.map(s.string()),
  disks: s.array(disk),
  target: s.intOrString(),
  since: s.dateTime().nullable(),
  probe: s.preserve(),
  marker: s.empty(),
  nested: s.object({ deep: s.object({ flag: s.bool().required() }) }),
});

const valid = {
  name: 'x',
  cores: 4,
  port: 80,
  size: 2 ** 40,
  count: -3,
  ratio: 1.5,
  on: false,
  memory: '1Gi',
  requests: { cpu: '500m', memory: 1024, 'example.com/gpu': '1' },
  labels: { 'kubevirt.io/vm': 'a' },
  disks: [{ name: 'root', bus: 'virtio', bootOrder: 1 }, { name: 'data' }],
  target: 'http',
  since: null,
  probe: { anything: [1, 'two'] },
  marker: {},
  nested: { deep: { flag: true } },
  unknownField: { kept: 'as is' },
};

function problems(value: unknown): string[] {
  return validateAgainstSchema(thing.node, value, 'spec').map(fieldMessage);
}

describe('validateAgainstSchema', () => {
  it('accepts a value of the right shape, unknown fields included', () => {
    expect(problems(valid)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing required field', { name: undefined }, ['spec.name: required value']],
    [
      'a string where an integer belongs',
      { cores: 'four' },
      ['spec.cores: expected an integer, got the string "four"'],
    ],
    [
      'a fraction where an integer belongs',
      { port: 1.5 },
      ['spec.port: expected an integer, got the number 1.5'],
    ],
    ['a negative unsigned value', { cores: -2 }, ['spec.cores: must be greater than or equal to 0, got -2']],
    [
      'a uint32 beyond its range',
      { cores: 2 ** 32 },
      ['spec.cores: must be at most 4294967295 (uint32), got 4294967296'],
    ],
    [
      'an int32 beyond its range',
      { port: 2 ** 31 },
      ['spec.port: must be at most 2147483647 (int32), got 2147483648'],
    ],
    [
      'an int32 below its range',
      { port: -(2 ** 31) - 1 },
      ['spec.port: must be at least -2147483648 (int32), got -2147483649'],
    ],
    [
      'an int64 a number cannot hold exactly',
      { size: 2 ** 60 },
      ['spec.size: must be between -9007199254740991 and 9007199254740991, got 1152921504606847000'],
    ],
    [
      'an int beyond 2^53 without a format',
      { count: 1e21 },
      ['spec.count: must be between -9007199254740991 and 9007199254740991, got 1e+21'],
    ],
    [
      'a string where a number belongs',
      { ratio: '1.5' },
      ['spec.ratio: expected a number, got the string "1.5"'],
    ],
    [
      'a string where a boolean belongs',
      { on: 'yes' },
      ['spec.on: expected a boolean, got the string "yes"'],
    ],
    ['a number where a string belongs', { name: 3 }, ['spec.name: expected a string, got the number 3']],
    ['an object where a string belongs', { name: { a: 1 } }, ['spec.name: expected a string, got an object']],
    ['a bad quantity', { memory: 'lots' }, ['spec.memory: quantity "lots" is not a valid resource quantity']],
    [
      'a fractional JSON number as a quantity',
      { memory: 1.5 },
      ['spec.memory: expected an integer or a quantity string, got the number 1.5'],
    ],
    [
      'a negative resource amount',
      { requests: { cpu: '-1' } },
      ['spec.requests.cpu: quantity "-1" must be greater than or equal to 0'],
    ],
    [
      'a map value of the wrong kind',
      { labels: { 'kubevirt.io/vm': 7 } },
      ['spec.labels[kubevirt.io/vm]: expected a string, got the number 7'],
    ],
    ['a map that is an array', { labels: ['a'] }, ['spec.labels: expected an object, got an array']],
    ['an array that is a string', { disks: 'root' }, ['spec.disks: expected an array, got a string']],
    [
      'an array that is an object',
      { disks: { name: 'root' } },
      ['spec.disks: expected an array, got an object'],
    ],
    ['null in an array', { disks: [null] }, ['spec.disks[0]: expected an object, got null']],
    [
      'a value outside the enum',
      { disks: [{ name: 'a' }, { name: 'b', bus: 'ide' }] },
      ['spec.disks[1].bus: unsupported value "ide", supported values: "virtio", "sata"'],
    ],
    [
      'a missing required field in an item',
      { disks: [{ bus: 'sata' }] },
      ['spec.disks[0].name: required value'],
    ],
    [
      'int-or-string that is neither',
      { target: true },
      ['spec.target: expected an integer or a string, got a boolean'],
    ],
    [
      'int-or-string with a fraction',
      { target: 0.5 },
      ['spec.target: expected an integer or a string, got the number 0.5'],
    ],
    [
      'a date-time that is not RFC 3339',
      { since: 'yesterday' },
      ['spec.since: expected an RFC 3339 date-time, got the string "yesterday"'],
    ],
    ['a kept-as-is object that is not one', { probe: 'x' }, ['spec.probe: expected an object, got a string']],
    ['a marker that is not an object', { marker: true }, ['spec.marker: expected an object, got a boolean']],
    ['null where null is not allowed', { nested: null }, ['spec.nested: expected an object, got null']],
    ['a deep required field', { nested: { deep: {} } }, ['spec.nested.deep.flag: required value']],
    [
      'several problems, each with its path',
      { cores: 'four', disks: [null, { name: 1 }], memory: '1KiB' },
      [
        'spec.cores: expected an integer, got the string "four"',
        'spec.memory: quantity "1KiB" is not a valid resource quantity',
        'spec.disks[0]: expected an object, got null',
        'spec.disks[1].name: expected a string, got the number 1',
      ],
    ],
  ])('reports %s', (_, patch, expected) => {
    expect(problems({ ...valid, ...patch })).toEqual(expected);
  });

  it('accepts null where the schema allows it, and absent optional fields', () => {
    expect(problems({ name: 'x', since: null })).toEqual([]);
  });

  it.each<[unknown, string]>([
    [null, 'expected an object, got null'],
    ['x', 'expected an object, got a string'],
    [[], 'expected an object, got an array'],
  ])('reports the root %p without a path', (value, detail) => {
    expect(validateAgainstSchema(thing.node, value, '')).toEqual([{ field: '', detail }]);
  });

  it('shortens a long string it shows', () => {
    const [p] = problems({ ...valid, cores: 'x'.repeat(100) });
    expect(p).toBe(`spec.cores: expected an integer, got the string "${'x'.repeat(32)}…"`);
  });
});

describe('validateAgainstSchema on the VMI spec', () => {
  const spec = (devices: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => ({
    domain: { devices, memory: { guest: '64Mi' }, ...extra },
  });

  it.each<[string, unknown, string[]]>([
    [
      'disks as a string',
      spec({ disks: 'root' }),
      ['spec.domain.devices.disks: expected an array, got a string'],
    ],
    [
      'interfaces as an object',
      spec({ interfaces: { name: 'default' } }),
      ['spec.domain.devices.interfaces: expected an array, got an object'],
    ],
    [
      'disks: [null]',
      spec({ disks: [null] }),
      ['spec.domain.devices.disks[0]: expected an object, got null'],
    ],
    [
      'memory "lots"',
      spec({}, { memory: { guest: 'lots' } }),
      ['spec.domain.memory.guest: quantity "lots" is not a valid resource quantity'],
    ],
    [
      'cores "four"',
      spec({}, { cpu: { cores: 'four' } }),
      ['spec.domain.cpu.cores: expected an integer, got the string "four"'],
    ],
    [
      'cores -2',
      spec({}, { cpu: { cores: -2 } }),
      ['spec.domain.cpu.cores: must be greater than or equal to 0, got -2'],
    ],
    [
      'a negative CPU request',
      spec({}, { resources: { requests: { cpu: '-500m' } } }),
      ['spec.domain.resources.requests.cpu: quantity "-500m" must be greater than or equal to 0'],
    ],
    ['no devices', { domain: {} }, ['spec.domain.devices: required value']],
    ['no domain', {}, ['spec.domain: required value']],
  ])('%s', (_, value, expected) => {
    expect(validateAgainstSchema(vmiSpec.node, value, 'spec').map(fieldMessage)).toEqual(expected);
  });
});
