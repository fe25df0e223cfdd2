import { describe, expect, it } from '@jest/globals';
import { arrivedByMigration } from './incoming.ts';

describe('arrivedByMigration', () => {
  it.each([
    ['resumed', 'migrated', true],
    ['suspended', 'paused', true],
    ['resumed', 'unpaused', false],
    ['started', 'migrated', false],
    ['stopped', 'migrated', false],
    ['suspended', 'migrated', false],
  ])('%s/%s → %s', (event, detail, arrived) => {
    expect(arrivedByMigration(event, detail)).toBe(arrived);
  });
});
