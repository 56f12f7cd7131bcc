import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { CheerioAPI } from 'cheerio';

type Cheerio = typeof import('cheerio');

const requireModule = createRequire(import.meta.url);
let cheerio: Cheerio | undefined;

/**
 * Parses an HTML document with cheerio, which is loaded at the first call: importing it (parse5,
 * htmlparser2, css-select...) costs about 0.25 s of CPU, which every process that builds the
 * services (each test file is one) would pay at startup, though only crawls, claim checks and
 * badge checks parse HTML. It is required, not imported, so that the parsers stay synchronous;
 * required by the path of its ES module build (require of an ES module, Node 22+), so a process
 * that also imports cheerio (test helpers) shares the one copy. The one place that loads cheerio;
 * the other modules import only its types.
 */
export function loadHtml(html: string): CheerioAPI {
  cheerio ??= requireModule(fileURLToPath(import.meta.resolve('cheerio'))) as Cheerio;
  return cheerio.load(html);
}
