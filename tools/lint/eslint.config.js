// ESLint for the project (run from the repository root by `npm run lint`): typescript-eslint's
// recommended rules without type information, and the layering of docs/architecture as import rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const NODE_BUILTINS = [...builtinModules.filter((m) => !m.startsWith('_')), ...builtinModules.map((m) => `node:${m}`)];

/** One `no-restricted-imports` rule: value imports of these paths/patterns are refused with `message`. */
const refuse = (message, { paths = [], patterns = [], regex }) => [
  'error',
  {
    paths: paths.map((name) => ({ name, message, allowTypeImports: true })),
    patterns: [
      ...(patterns.length ? [{ group: patterns, message, allowTypeImports: true }] : []),
      ...(regex ? [{ regex, message, allowTypeImports: true }] : []),
    ],
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.data/**', 'tools/**', 'temporal/**', '*.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      // zod, pg and test bodies are untyped JSON by nature; `any` stays a reviewer's call.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      // Control characters in patterns are the point of the text rules (domain/fields.ts).
      'no-control-regex': 'off',
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { process: 'readonly', module: 'writable', require: 'readonly' } },
  },
  {
    // Workflows are replayed: no I/O, no clock, no randomness; activities are imported as types only.
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': refuse('Workflows are deterministic: reach I/O through activities (import type).', {
        paths: NODE_BUILTINS,
        patterns: ['**/db/**', '**/activities/**', '**/services.ts', '**/config.ts', 'knex', 'pg', 'undici'],
        // The domain, except its pure modules shared with the workflows: calendar arithmetic
        // (weeks.ts) and lists of names (kinds.ts).
        regex: '/domain/(?![a-z-]+/(weeks|kinds)\\.ts$)',
      }),
    },
  },
  {
    // The domain knows nothing of transports.
    files: ['src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': refuse('The domain knows no transport: api, mcp and web call it, not the other way.', {
        patterns: ['**/api/**', '**/mcp/**', '**/web/**', '**/operations/**', '**/app.ts', 'koa', '@koa/*', '@modelcontextprotocol/*'],
      }),
    },
  },
  {
    // Accounts and OAuth serve every transport; they do not depend on one.
    files: ['src/auth/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': refuse('auth serves every transport and imports none of mcp, api or operations.', {
        patterns: ['**/mcp/**', '**/api/**', '**/operations/**'],
      }),
    },
  },
);
