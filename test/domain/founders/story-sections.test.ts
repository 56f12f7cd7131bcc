import test from 'ava';
import { paragraphs } from '../../../src/domain/founders/public-story.ts';
import { sniffImageFormat } from '../../../src/domain/media/images.ts';
import { countWords, toCurrentSections } from '../../../src/domain/founders/story-sections.ts';
import { AppError } from '../../../src/errors/errors.ts';
import { imageBytes } from '../../helpers/founders.ts';

test('words are counted as a reader counts them; punctuation and padding are not words', (t) => {
  t.is(countWords("Hello, world - it's 2026!"), 4);
  t.is(countWords('  — — !!! ... \n\n ***  '), 0);
  t.is(countWords(null), 0);
  t.true(countWords('我们为小团队做了一个地图') >= 4, 'text without spaces still has words');
});

test('older names map to current ones; an older name with its current one names both paths', (t) => {
  t.deepEqual(toCurrentSections({ story: 'a', lessons: '', problem: 'b' }), { how_started: 'a', whats_next: '', problem: 'b' });
  const err = t.throws(() => toCurrentSections({ achievements: 'x', milestones: 'y' }), { instanceOf: AppError });
  t.deepEqual(
    err.errors!.map((e) => e.path),
    ['achievements', 'milestones'],
  );
});

test('paragraphs split on blank lines and keep single line breaks', (t) => {
  t.deepEqual(paragraphs('One.\r\n\r\nTwo\nlines.\n \n\n\nThree.  '), ['One.', 'Two\nlines.', 'Three.']);
  t.deepEqual(paragraphs('\n\n'), []);
});

test('image types are told by their bytes', async (t) => {
  for (const format of ['png', 'jpeg', 'webp', 'gif', 'avif'] as const) {
    t.is(sniffImageFormat(await imageBytes(format, 80, 80)), format);
  }
  t.is(sniffImageFormat(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), null);
  t.is(sniffImageFormat(Buffer.from('GIF8')), null);
  t.is(sniffImageFormat(Buffer.alloc(0)), null);
});
