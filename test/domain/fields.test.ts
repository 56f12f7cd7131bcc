import test from 'ava';
import { HttpsUrl, HttpUrl, oneLine, plainText } from '../../src/domain/fields.ts';
import { parseHttpUrl } from '../../src/urls.ts';
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
