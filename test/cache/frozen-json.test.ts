import test from 'ava';
import { deepFreeze, isFrozenWhole, jsonText } from '../../src/cache/frozen-json.ts';

test('a value frozen whole cannot change inside, and its JSON is the same string every time', (t) => {
  const page = deepFreeze({ items: [{ name: 'Bolt', tags: ['a'] }], total: 1 });
  t.true(isFrozenWhole(page) && isFrozenWhole(page.items) && isFrozenWhole(page.items[0]));
  t.throws(
    () => {
      (page.items[0] as { name: string }).name = 'changed';
    },
    { instanceOf: TypeError },
  );
  t.throws(() => (page.items[0]!.tags as string[]).push('b'), { instanceOf: TypeError });
  const text = jsonText(page);
  t.is(text, JSON.stringify({ items: [{ name: 'Bolt', tags: ['a'] }], total: 1 }));
  t.is(jsonText(page), text);
});

test('values not frozen by deepFreeze get fresh JSON: a later change shows', (t) => {
  const open = { votes: 1 };
  t.is(jsonText(open), '{"votes":1}');
  open.votes = 2;
  t.is(jsonText(open), '{"votes":2}');
  // Frozen at the top only: what is inside may still change, so nothing is kept.
  const inner = { votes: 1 };
  const shallow = Object.freeze({ inner });
  t.false(isFrozenWhole(shallow));
  t.is(jsonText(shallow), '{"inner":{"votes":1}}');
  inner.votes = 2;
  t.is(jsonText(shallow), '{"inner":{"votes":2}}');
  for (const plain of [null, 'text', 3, true]) t.is(jsonText(plain), JSON.stringify(plain));
});
