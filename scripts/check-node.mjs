// Fails early, naming the fix, when the project is run on anything but its pinned Node 24.
const major = Number(process.versions.node.split('.')[0]);
if (major !== 24) {
  console.error(
    `node ${process.version} is not supported: this project runs on Node 24 LTS. ` +
      'Run `bash scripts/install.sh` once, then `source scripts/env.sh` to put .tools/node/bin first on PATH.',
  );
  process.exit(1);
}
