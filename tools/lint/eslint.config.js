// ESLint for the project (run from the repository root by `npm run lint`): typescript-eslint's
// recommended rules without type information. The layers are dependency-cruiser's
// (.dependency-cruiser.cjs), also run by `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { process: 'readonly', module: 'writable', require: 'readonly' } },
  },
);
