import fs from 'node:fs/promises';
import test from 'ava';
import { CONFIGURATION_PAGE, configurationPage } from '../../scripts/docs-config.ts';
import { EnvSchema } from '../../src/config/env.ts';

/** docs/configuration.md is what the one config schema says, rendered by `npm run docs:config`. */

test('docs/configuration.md is the page rendered from the config schema (run `npm run docs:config`)', async (t) => {
  const file = await fs.readFile(CONFIGURATION_PAGE, 'utf8');
  const expected = configurationPage();
  const differing = expected
    .split('\n')
    .filter((line, i) => file.split('\n')[i] !== line)
    .slice(0, 5);
  t.deepEqual(differing, [], 'lines of the rendered page that the file lacks or has otherwise');
  t.is(file, expected);
});

test('every variable of the schema is on the page with its default and its description', (t) => {
  const page = configurationPage();
  for (const [name, schema] of Object.entries(EnvSchema.shape)) {
    const row = page.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
    t.truthy(row, name);
    t.true(row!.includes(schema.description!.replaceAll('|', '\\|')), `${name}: its description`);
  }
  t.regex(page, /\| `PORT` \| `3000` \| integer, 0 to 65535 \|/);
  t.regex(page, /\| `CRAWL_ALLOW_PRIVATE_NETWORKS` \| `false` \|/);
  t.regex(page, /\| `DATABASE_URL` \| unset \|/);
});
