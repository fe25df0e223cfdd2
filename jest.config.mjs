// Two projects: unit tests sit next to the code (*.test.ts); integration tests (*.itest.ts) run
// against the real kube-apiserver + etcd started once per run by testenv/jest-global-setup.ts
// (or against $KUBECONFIG when it is set).
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'es6' } }],
};
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform,
  testEnvironment: 'node',
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
export default {
  testSequencer: '<rootDir>/testenv/jest-sequencer.mjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{cmd,lib,testenv,e2e,bench}/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{cmd,lib,testenv,e2e}/**/*.itest.ts'],
      globalSetup: '<rootDir>/testenv/jest-global-setup.ts',
      globalTeardown: '<rootDir>/e2e/local/testing/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/testenv/jest-setup-integration.ts'],
    },
  ],
};
