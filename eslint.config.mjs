import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', 'lib/rpc/gen/**', 'lib/handler/device-plugins/gen/**', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      complexity: ['error', 12],
      'max-depth': ['error', 3],
      'max-params': ['error', 4],
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
      'no-console': 'error',
    },
  },
  {
    files: ['lib/**/*.ts'],
    ignores: ['lib/**/*.test.ts', 'lib/**/*.itest.ts'],
    rules: { '@typescript-eslint/explicit-function-return-type': 'error' },
  },
  {
    files: ['**/*.test.ts', '**/*.itest.ts', 'testenv/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts', 'cmd/**/*.ts'],
    rules: { 'max-lines-per-function': 'off', 'no-console': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/*.itest.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'it', property: 'only' }, { object: 'describe', property: 'only' }, { object: 'test', property: 'only' },
        { object: 'it', property: 'skip' }, { object: 'describe', property: 'skip' }, { object: 'test', property: 'skip' },
      ],
    },
  },
);
