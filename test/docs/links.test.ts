import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

/** Every relative link of the README and docs/ opens: its file exists, and so does its #heading. */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function pages(): Promise<string[]> {
  const docs = (await fs.readdir(path.join(ROOT, 'docs'), { recursive: true })).filter((f) => f.endsWith('.md'));
  return ['README.md', ...docs.map((f) => path.join('docs', f))];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');

async function anchorsOf(file: string): Promise<Set<string>> {
  const text = await fs.readFile(file, 'utf8');
  const headings = text
    .replace(/```[\s\S]*?```/g, '')
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l));
  return new Set(headings.map((l) => anchor(l.replace(/^#+ /, ''))));
}

test('relative links of the README and docs/ lead to files and headings that exist', async (t) => {
  const broken: string[] = [];
  let links = 0;
  for (const page of await pages()) {
    const text = (await fs.readFile(path.join(ROOT, page), 'utf8')).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      links++;
      const [file, hash] = target!.split('#');
      const full = file ? path.resolve(path.dirname(path.join(ROOT, page)), file) : path.join(ROOT, page);
      const exists = await fs.stat(full).then(
        () => true,
        () => false,
      );
      if (!exists) broken.push(`${page}: ${target} (no such file)`);
      else if (hash && full.endsWith('.md') && !(await anchorsOf(full)).has(hash)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  t.true(links > 20, 'the pages link to each other');
  t.deepEqual(broken, []);
});

test('the README stays a front door', async (t) => {
  const readme = await fs.readFile(path.join(ROOT, 'README.md'), 'utf8');
  t.true(readme.split('\n').length <= 200, 'at most about 200 lines: details go to docs/');
  for (const page of ['getting-started', 'configuration', 'operations', 'payments', 'webhooks', 'mcp-oauth', 'search', 'benchmarks']) {
    t.true(readme.includes(`(docs/${page}.md)`), `the README links docs/${page}.md`);
  }
});
