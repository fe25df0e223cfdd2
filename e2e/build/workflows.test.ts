/**
 * Every project command the GitHub workflows run exists: the npm scripts in package.json, the repository files
 * they execute or hand over (scripts, e2e/kind/smoke.sh, bin/*, manifests), the local actions. A planted
 * workflow shows what is read and that a missing one is named.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { workflowCommands, type ProjectCommand } from './workflow-commands.ts';

const REPO = resolve(import.meta.dirname, '..', '..');
const WORKFLOWS = join(REPO, '.github/workflows');
const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: object }).scripts;

const missing = (c: ProjectCommand): boolean =>
  c.kind === 'npm script' ? !Object.hasOwn(scripts, c.name) : !existsSync(join(REPO, c.path));
const describeCommand = (c: ProjectCommand): string =>
  c.kind === 'npm script' ? `npm script "${c.name}"` : `file ${c.path}`;

const workflows = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));

describe('the GitHub workflows', () => {
  it.each(workflows)('%s runs only commands that exist', (name) => {
    const commands = workflowCommands(readFileSync(join(WORKFLOWS, name), 'utf8'));
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.filter(missing).map(describeCommand)).toEqual([]);
  });

  it('run the kind smoke script with the example KubeVirt resource', () => {
    const all = workflows.flatMap((name) => workflowCommands(readFileSync(join(WORKFLOWS, name), 'utf8')));
    expect(all.map(describeCommand)).toEqual(
      expect.arrayContaining(['file e2e/kind/smoke.sh', 'file manifests/examples/kubevirt.yaml']),
    );
  });
});

const PLANTED = `
name: planted
on: push
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
      - uses: ./.github/actions/none
      - run: npm ci && npm run build && npm run --silent gen:nothing
      - run: |
          # bash scripts/commented-out.sh
          sudo KV=1 bash -eu e2e/kind/missing.sh manifests/examples/nothing.yaml "$RUNNER_TEMP/x" --flag
          bin/virtctl-ts --help >/dev/null; ./dev run; node -e "1" && bash -e -c "echo a/b"
          npm test
          kind load docker-image localhost/kubevirt-ts:local --name kubevirt-ts
          docker run --rm debian:bookworm bash -c 'bash /src/inside.sh' | tail -n 1
          node scripts/build.mjs "$ctx/dist"
          cp a/b c/d
  b:
    runs-on: ubuntu-24.04
    steps:
      - run: |
          bash \\
            .ci/run
`;

describe('workflowCommands', () => {
  it('reads npm scripts, executed repository files with the files they get, and local actions', () => {
    expect(workflowCommands(PLANTED).map(describeCommand)).toEqual([
      'file .github/actions/none',
      'npm script "build"',
      'npm script "gen:nothing"',
      'file e2e/kind/missing.sh',
      'file manifests/examples/nothing.yaml',
      'file bin/virtctl-ts',
      'file dev',
      'npm script "test"',
      'file scripts/build.mjs',
      'file .ci/run',
    ]);
  });

  it('names what is missing', () => {
    expect(workflowCommands(PLANTED).filter(missing).map(describeCommand)).toEqual([
      'file .github/actions/none',
      'npm script "gen:nothing"',
      'file e2e/kind/missing.sh',
      'file manifests/examples/nothing.yaml',
    ]);
  });
});
