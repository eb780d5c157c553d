// ESLint for apps, libs, test and scripts (`npm run lint`, part of `npm test`). TypeScript is linted
// with type information (typescript-eslint's type-checked rules, each file against the tsconfig.json
// that includes it); the layering between apps and libs is dependency-cruiser's (.dependency-cruiser.cjs).
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import { defineConfig } from 'eslint/config';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', '.data/**'] },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // The dashboard's tsconfig leaves its specs out (they run under jest, not in the browser bundle).
        projectService: { allowDefaultProject: ['apps/dashboard/src/*.spec.ts', 'apps/dashboard/src/*/*.spec.ts', 'apps/dashboard/src/pages/*/*.spec.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // An async method that implements a Promise-returning interface need not await; the hazards
      // (a promise nobody awaits, a promise where a callback is expected) are the two rules above.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
    rules: {
      // Jest's asymmetric matchers (expect.any, expect.objectContaining...) are typed `any`.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    plugins: { 'simple-import-sort': simpleImportSort, '@stylistic': stylistic },
    rules: {
      // One block, no blank lines, as the code is written: side effects first (tracing must load
      // before anything it instruments), then node:, packages, @foresight/ aliases, relative paths.
      'simple-import-sort/imports': ['error', { groups: [['^\\u0000', '^node:', '^@?\\w', '^@foresight/', '^\\.']] }],
      'simple-import-sort/exports': 'error',
      // The import sorter moves specifiers and leaves the spacing to a formatter; this is the one we need.
      '@stylistic/comma-spacing': 'error',
    },
  },
);
