import { describe, expect, it } from '@jest/globals';
import { MIGRATE } from '../../libvirt/index.ts';
import { migrationFlags, type FlagInputs } from './flags.ts';

const BASE = MIGRATE.LIVE | MIGRATE.PEER2PEER | MIGRATE.PERSIST_DEST;
const off = { unsafe: false, allowAutoConverge: false, allowPostCopy: false };

describe('migrationFlags', () => {
  it.each<{ name: string; in: FlagInputs; want: number }>([
    {
      name: 'live, peer to peer, persistent',
      in: { blockMigration: false, paused: false, options: off },
      want: BASE,
    },
    {
      name: 'block migration',
      in: { blockMigration: true, paused: false, options: off },
      want: BASE | MIGRATE.NON_SHARED_INC,
    },
    {
      name: 'paused guest',
      in: { blockMigration: false, paused: true, options: off },
      want: BASE | MIGRATE.PAUSED,
    },
    {
      name: 'unsafe',
      in: { blockMigration: false, paused: false, options: { ...off, unsafe: true } },
      want: BASE | MIGRATE.UNSAFE,
    },
    {
      name: 'auto-converge',
      in: { blockMigration: false, paused: false, options: { ...off, allowAutoConverge: true } },
      want: BASE | MIGRATE.AUTO_CONVERGE,
    },
    {
      name: 'post-copy',
      in: { blockMigration: false, paused: false, options: { ...off, allowPostCopy: true } },
      want: BASE | MIGRATE.POSTCOPY,
    },
    {
      name: 'parallel threads',
      in: { blockMigration: false, paused: false, options: { ...off, parallelThreads: 4 } },
      want: BASE | MIGRATE.PARALLEL,
    },
    {
      name: 'parallel threads are ignored with post-copy',
      in: {
        blockMigration: false,
        paused: false,
        options: { ...off, allowPostCopy: true, parallelThreads: 4 },
      },
      want: BASE | MIGRATE.POSTCOPY,
    },
  ])('$name', (c) => {
    expect(migrationFlags(c.in)).toBe(c.want);
  });
});
