import { describe, expect, it } from '@jest/globals';
import { formatTable } from './table.ts';

describe('formatTable', () => {
  it('renders one markdown row per measure, with magnitude-aware precision', () => {
    const out = formatTable([
      { file: 'informer.bench.ts', row: { name: 'cache events/s', value: 12345.678, unit: 'ev/s' } },
      {
        file: 'informer.bench.ts',
        row: { name: 'ratio', value: 0.91234, unit: 'x', note: 'informer / bare' },
      },
      { file: 'x.bench.ts', row: { name: 'p50', value: 42.26, unit: 'ms' } },
    ]);
    expect(out.split('\n')).toEqual([
      '| bench | measure | value | unit | note |',
      '|---|---|---:|---|---|',
      '| informer | cache events/s | 12346 | ev/s |  |',
      '| informer | ratio | 0.912 | x | informer / bare |',
      '| x | p50 | 42.3 | ms |  |',
    ]);
  });
});
