import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

type Sharp = typeof import('sharp').default;

const requireModule = createRequire(import.meta.url);
let sharp: Sharp | undefined;

/**
 * The `sharp` image library, loaded at its first use: importing it (and its libvips binding) costs
 * about 55 ms of CPU, which every process that builds the app (each test file is one) would pay at
 * startup, though only image uploads, crawled logos, share cards and the brand images (web) resize
 * or encode an image. Here, below the domain and the web, because both use it. It is required, not
 * imported, so that its callers stay as they are; required by the path of its ES module build
 * (require of an ES module, Node 22+), so a process that also imports sharp (test helpers) shares
 * the one copy. The one place that loads sharp; the other modules import only its types.
 */
export function loadSharp(): Sharp {
  sharp ??= (requireModule(fileURLToPath(import.meta.resolve('sharp'))) as { default: Sharp }).default;
  return sharp;
}
