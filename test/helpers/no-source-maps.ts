/**
 * Loaded first in every test file's process (ava.config.js nodeArguments): ava starts its
 * workers with --enable-source-maps, which reads and parses the source map of every
 * dependency that ships one (about 0.1 s of CPU per file's process). Our TypeScript needs none:
 * Node strips its types in place, so stack traces already point at the right lines.
 */
import { setSourceMapsSupport } from 'node:module';

setSourceMapsSupport(false);
