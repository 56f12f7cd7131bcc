import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

/**
 * Code, tests and docs cite only what a reader of the repository can open: no issue numbers, no
 * sections of a design or spec document kept outside it, no path out of the repository. A reason
 * is stated where it applies, or recorded in docs/decisions/ and pointed to from there.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.data', 'tmp', 'fixtures', '.schemathesis']);
const TEXT = /\.(ts|js|cjs|mjs|md|sh|json|ya?ml|go|java|xml|html|css|txt)$|^(Dockerfile|run)$/;
const SKIPPED_FILES = new Set(['package-lock.json']);

// Assembled from parts so this file does not match itself.
const CITATIONS: [RegExp, string][] = [
  [new RegExp('\\b' + 'issues?\\s+#?\\d+', 'i'), 'an issue number'],
  [new RegExp('\\b' + '(DESIGN|SPEC)(\\.md)?\\s*§', 'i'), 'a section of a document outside the repository'],
  [new RegExp('DESIGN' + '\\.md|' + 'SPEC' + '\\.md'), 'a document outside the repository'],
  [new RegExp('\\.\\./' + 'shared(?![\\w.-])'), 'a path outside the repository'],
];

/** Every text file of the repository, its own dependencies and data aside. */
async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* files(full);
    } else if (entry.isFile() && TEXT.test(entry.name) && !SKIPPED_FILES.has(entry.name)) {
      yield full;
    }
  }
}

/** Where `text` cites something a reader cannot open, as `line: what`. */
function citations(text: string): string[] {
  const found: string[] = [];
  for (const [n, line] of text.split('\n').entries()) {
    for (const [pattern, what] of CITATIONS) {
      const m = pattern.exec(line);
      if (m) found.push(`${n + 1}: ${what} ("${m[0]}")`);
    }
  }
  return found;
}

test('the patterns find what they are meant to find, and only that', (t) => {
  const cited = [
    '// see is' + 'sue 12 §3',
    '/** Is' + 'sue #25 */',
    '(DES' + 'IGN §7)',
    'per SP' + 'EC §2',
    'in ../sha' + 'red/DES' + 'IGN.md',
  ];
  for (const line of cited) t.not(citations(line).length, 0, line);
  const plain = ['A known issue of the SDK', 'RFC 9457 §3.2', 'CARD_DESIGN = 1', '../cache/shared-json.ts', 'issued 3 tokens'];
  for (const line of plain) t.deepEqual(citations(line), [], line);
});

test('no source, test or doc file cites an issue, an outside document or a path out of the repository', async (t) => {
  const offenders: string[] = [];
  let seen = 0;
  for await (const file of files(ROOT)) {
    seen++;
    for (const hit of citations(await fs.readFile(file, 'utf8'))) offenders.push(`${path.relative(ROOT, file)}:${hit}`);
  }
  t.true(seen > 500, 'the walk reads the repository');
  t.deepEqual(offenders, [], 'state the reason instead, or point to a record in docs/decisions/');
});
