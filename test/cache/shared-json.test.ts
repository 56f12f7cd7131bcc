import test from 'ava';
import { isShared, jsonText, markShared } from '../../src/cache/shared-json.ts';

/** A value whose JSON counts how often it is made. */
function counted() {
  const made = { times: 0 };
  const value = { items: [{ name: 'Bolt' }], toJSON: () => (made.times++, { name: 'Bolt' }) };
  return { value, made };
}

test("a shared value's JSON is made once, and is the JSON of the value", (t) => {
  const { value, made } = counted();
  t.is(markShared(value), value);
  t.true(isShared(value));
  t.is(jsonText(value), '{"name":"Bolt"}');
  t.is(jsonText(value), '{"name":"Bolt"}');
  t.is(made.times, 1);
});

test('values not marked shared get fresh JSON every time: a change shows', (t) => {
  const { value, made } = counted();
  t.false(isShared(value));
  jsonText(value);
  jsonText(value);
  t.is(made.times, 2);
  const open = { votes: 1 };
  t.is(jsonText(open), '{"votes":1}');
  open.votes = 2;
  t.is(jsonText(open), '{"votes":2}');
  for (const plain of [null, 'text', 3, true]) {
    t.is(markShared(plain), plain);
    t.false(isShared(plain));
    t.is(jsonText(plain), JSON.stringify(plain));
  }
});
