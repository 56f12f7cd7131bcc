// The lint toolchain lives in tools/lint (its own package: see the note in its package.json).
export { default } from './tools/lint/eslint.config.js';
