// The lint half of the tooling gate (stack/check.sh): type-aware rules where
// they catch real faults, the import directions of the README, Temporal's
// rules for workflow code, and one file-name style.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import checkFile from 'eslint-plugin-check-file';

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);
const PRODUCTION = ['core', 'api', 'domain', 'integrations', 'activities', 'workflows', 'worker', 'prisma/migrate.ts'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'prisma/generated/**', '.data/**', '.tools/**', '**/dist/**', 'test/fixtures-handmade/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX, 'check-file': checkFile },
    settings: { 'import-x/resolver': { typescript: true, node: true } },
    rules: {
      // A promise nobody awaits loses its error and its ordering.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // Route tables hold routes of every parameter type; `any` is the variance they need.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-require-imports': 'off',
      // A handler declared before the server that calls it and assigned once after is not a constant.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'check-file/filename-naming-convention': ['error', { '**/*.{ts,js,mjs}': 'KEBAB_CASE' }, { ignoreMiddleExtensions: true }],
      'check-file/folder-naming-convention': [
        'error',
        { '{core,api,domain,integrations,activities,workflows,worker,stack,test,bench,prisma}/**/': 'KEBAB_CASE' },
      ],
      // The allowed import directions (README, "Where code lives").
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: PRODUCTION.map((p) => `./${p}`),
              from: ['./stack', './test', './bench'],
              message: 'Production code never imports the local stack, tests or benchmarks.',
            },
            {
              target: './core',
              from: ['./api', './domain', './integrations', './activities', './workflows', './worker', './prisma'],
              message: 'The kernel (core/) imports nothing of the service: every layer imports it.',
            },
            {
              target: './integrations',
              from: './domain',
              message: 'Integrations are clients: they use the kernel (core/), never the domain.',
            },
            {
              target: './integrations',
              from: ['./api', './activities', './workflows', './worker'],
              message: 'Integrations are clients: they know nothing of who calls them.',
            },
            {
              target: './domain',
              from: ['./api', './activities', './worker'],
              message: 'Domain rules do not depend on the HTTP layer, activities or the worker.',
            },
            {
              target: './domain',
              from: './workflows',
              except: ['./definitions.ts'],
              message: 'The domain starts and signals workflows by the names in workflows/definitions.ts only.',
            },
            { target: './api', from: ['./activities', './worker'], message: 'The API calls domain functions; it never runs activities.' },
            {
              target: './api',
              from: './workflows',
              except: ['./definitions.ts'],
              message: 'The API knows workflows by the names in workflows/definitions.ts only.',
            },
            {
              target: './activities',
              from: ['./api', './worker'],
              message: 'Activities use domain functions and integrations, never the HTTP layer.',
            },
            {
              target: './activities',
              from: './workflows',
              except: ['./definitions.ts'],
              message: 'Activities know workflows by the names in workflows/definitions.ts only.',
            },
            {
              target: './workflows',
              from: ['./api', './domain', './integrations', './worker', './prisma'],
              message: 'Workflow code is deterministic: besides workflows/ it imports the kernel (core/) and activity types only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Temporal's rules for workflow code: it runs in a deterministic sandbox.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins,
          patterns: [
            {
              group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker'],
              message: 'Workflow code may import @temporalio/workflow and @temporalio/common only.',
            },
          ],
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../activities', '../activities/*'],
              allowTypeImports: true,
              message: 'Workflows import activity types only (proxyActivities<Activities>).',
            },
          ],
        },
      ],
    },
  },
  {
    // Plain JavaScript helpers (test receiver process, bench load script, configs) are not type-checked.
    files: ['**/*.{js,mjs}'],
    ...tseslint.configs.disableTypeChecked,
    plugins: { 'check-file': checkFile },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
      'check-file/filename-naming-convention': ['error', { '**/*.{js,mjs}': 'KEBAB_CASE' }, { ignoreMiddleExtensions: true }],
    },
  },
  {
    // node:test's describe and it return promises that its runner awaits itself.
    files: ['clients/typescript/test/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
);
