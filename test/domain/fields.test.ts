import test from 'ava';
import { HttpsUrl, HttpUrl, oneLine, plainText, WebsiteUrl } from '../../src/domain/fields.ts';
import { parseHttpUrl } from '../../src/lib/urls.ts';
import { operations } from '../../src/operations/index.ts';
import { operationSchemas } from '../../src/operations/json-schema.ts';

const CONTROLS = ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\u009f'];

test('one line refuses every C0/C1 control character, \\u0085 included; plain text allows line breaks and tabs only', (t) => {
  for (const c of [...CONTROLS, '\n', '\r', '\t']) t.false(oneLine(100).safeParse(`a${c}b`).success, JSON.stringify(c));
  for (const c of CONTROLS) t.false(plainText(100).safeParse(`a${c}b`).success, JSON.stringify(c));
  for (const c of ['\n', '\r\n', '\t']) t.true(plainText(100).safeParse(`a${c}b`).success, JSON.stringify(c));
  t.is(oneLine(100).parse('  Ünïcode ok – “quotes” 🚀  '), 'Ünïcode ok – “quotes” 🚀');
  t.false(oneLine(3).safeParse('abcd').success);
});

test('parseHttpUrl accepts http(s) URLs with a host and no credentials', (t) => {
  for (const ok of ['http://example.com', 'https://example.com/a?b#c', 'HTTPS://EXAMPLE.COM/', 'http://[::1]:8080/'])
    t.truthy(parseHttpUrl(ok), ok);
  for (const bad of [
    '',
    'example.com',
    'ftp://example.com',
    'javascript:alert(1)',
    'https://user:pw@example.com',
    'https://user@example.com',
    'http://',
    'mailto:a@b.c',
  ]) {
    t.is(parseHttpUrl(bad), null, bad);
  }
});

test('HttpUrl and HttpsUrl: schema pattern and check agree, https stated in the pattern', (t) => {
  t.true(HttpUrl.safeParse('http://example.com/').success);
  t.false(HttpsUrl.safeParse('http://example.com/').success);
  t.true(HttpsUrl.safeParse('https://example.com/').success);
  for (const bad of ['', 'https://a:b@example.com/', 'not a url']) {
    t.false(HttpUrl.safeParse(bad).success, bad);
    t.false(HttpsUrl.safeParse(bad).success, bad);
  }
});

test('every pattern in the operations’ JSON Schemas is portable (no \\p{…} classes, no flags) and compiles', (t) => {
  const patterns = new Set<string>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') patterns.add(value);
      else walk(value);
    }
  };
  for (const op of operations) walk(operationSchemas(op));
  t.true(patterns.size > 3);
  for (const p of patterns) {
    t.false(/\\p\{|\\P\{/.test(p), p);
    t.notThrows(() => new RegExp(p), p);
  }
});

test('WebsiteUrl adds https:// to an address without a scheme; its pattern states the same rule', (t) => {
  const pattern = new RegExp(
    operationSchemas(operations.find((op) => op.name === 'create_draft')!).input.properties!.url!.pattern as string,
  );
  const cases: [string, string | null][] = [
    ['example.org', 'https://example.org'],
    [' example.org/pricing?x=1 ', 'https://example.org/pricing?x=1'],
    ['example.org:8080', 'https://example.org:8080'],
    ['http://example.org/', 'http://example.org/'],
    ['HTTPS://example.org/', 'HTTPS://example.org/'],
    ['ftp://example.org/', null],
    ['javascript:alert(1)', null],
    ['mailto:hello@example.org', null],
    ['user:pw@example.org', null],
    ['not a url', null],
    ['', null],
  ];
  for (const [input, expected] of cases) {
    const parsed = WebsiteUrl.safeParse(input);
    t.is(parsed.success ? parsed.data : null, expected, input);
    // Whatever the pattern refuses, the schema refuses too.
    if (!pattern.test(input.trim())) t.false(parsed.success, `pattern refuses ${input}`);
  }
});
