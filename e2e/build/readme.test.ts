/**
 * README says what is true: its role table lists as built exactly the roles `virt` runs (cmd/built-roles.ts),
 * and as not built exactly those that refuse with exit 2 (cmd/roles.ts); the README's two set-up commands are
 * the ones `./dev` takes.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_ROLES } from '../../cmd/built-roles.ts';
import { ROLES } from '../../cmd/roles.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(join(REPO, 'README.md'), 'utf8');

/** Rows `| \`name\` | built | … |` of the table under the "## Roles" heading. */
function roleRows(): { name: string; state: string }[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Roles'));
  if (section === undefined) throw new Error('README has no "## Roles" section');
  return [...section.matchAll(/^\| `([a-z-]+)` \| (built|not built yet) \|/gm)].map((m) => ({
    name: m[1] ?? '',
    state: m[2] ?? '',
  }));
}

describe('README', () => {
  it('lists the built roles as built and the others as not built yet', () => {
    const rows = roleRows();
    const built = rows.filter((r) => r.state === 'built').map((r) => r.name);
    const notBuilt = rows.filter((r) => r.state !== 'built').map((r) => r.name);
    expect(built.sort()).toEqual(Object.keys(BUILT_ROLES).sort());
    expect(notBuilt.sort()).toEqual(ROLES.map((r) => r.name).sort());
  });

  it('gives the two set-up commands ./dev takes', () => {
    const dev = readFileSync(join(REPO, 'dev'), 'utf8');
    for (const cmd of ['run', 'test']) {
      expect(readme).toContain(`./dev ${cmd} `);
      expect(dev).toMatch(new RegExp(`^\\s+${cmd}\\)`, 'm'));
    }
  });
});
