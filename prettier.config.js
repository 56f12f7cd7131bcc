// The formatting rules live with the lint toolchain in tools/lint.
export { default } from './tools/lint/prettier.config.js';
