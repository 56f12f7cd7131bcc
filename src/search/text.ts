import type { Db } from '../db/knex.ts';

/** One term of a search: a word matched as a prefix, or a quoted phrase; `-` excludes it. */
export interface SearchTerm {
  kind: 'word' | 'phrase';
  text: string;
  negated: boolean;
}

/**
 * What a person typed into search, as web-search syntax: terms in a group must all match,
 * `or` between terms starts another group. Plain words match as prefixes (`bo` finds Bolt).
 */
export type SearchText = SearchTerm[][];

const MAX_TERMS = 8;
const TOKEN = /(-?)"([^"]*)"?|(-?)([\p{L}\p{N}]+)/gu;

/** Null when the text holds nothing to search for (only punctuation or exclusions, say). */
export function parseSearchText(q: string): SearchText | null {
  const groups: SearchText = [[]];
  let count = 0;
  for (const m of q.toLowerCase().matchAll(TOKEN)) {
    if (count >= MAX_TERMS) break;
    const [, phraseNot, phrase, wordNot, word] = m;
    if (word === 'or' && !wordNot) {
      if (groups.at(-1)!.length > 0) groups.push([]);
      continue;
    }
    const text = (phrase ?? word ?? '')
      .match(/[\p{L}\p{N}]+/gu)
      ?.join(' ')
      .slice(0, 120);
    if (!text) continue;
    groups.at(-1)!.push({ kind: phrase === undefined ? 'word' : 'phrase', text, negated: Boolean(phraseNot || wordNot) });
    count++;
  }
  const searchable = groups.filter((g) => g.some((t) => !t.negated));
  return searchable.length > 0 ? searchable : null;
}

/**
 * The whole lexemes each plain word stands for: those starting with the word or with its
 * english stem. Null for a word that starts more than MAX_EXPANSION lexemes (it keeps its
 * prefix match); an empty list for a word that starts none.
 */
export type Expansions = Map<string, string[] | null>;

const MAX_EXPANSION = 40;

/** Looks up the lexemes of every plain word of the search in `search_lexemes` (one round trip). */
export async function expandWords(db: Db, text: SearchText): Promise<Expansions> {
  const words = [
    ...new Set(
      text
        .flat()
        .filter((t) => t.kind === 'word' && !t.negated)
        .map((t) => t.text),
    ),
  ];
  if (words.length === 0) return new Map();
  const { rows } = await db.raw(
    `SELECT w.word, array(
       SELECT DISTINCT x.lexeme
       FROM unnest(tsvector_to_array(to_tsvector('simple', w.word) || to_tsvector('english', w.word))) p(prefix)
       CROSS JOIN LATERAL (
         SELECT l.lexeme FROM search_lexemes l
         WHERE l.lexeme >= p.prefix COLLATE "C" AND l.lexeme < (p.prefix || chr(1114111)) COLLATE "C"
         ORDER BY l.lexeme LIMIT ${MAX_EXPANSION + 1}) x
     ) AS lexemes
     FROM unnest(?::text[]) AS w(word)`,
    [words],
  );
  return new Map(
    (rows as Array<{ word: string; lexemes: string[] }>).map((r) => [r.word, r.lexemes.length > MAX_EXPANSION ? null : r.lexemes]),
  );
}

/** The search without the groups that cannot match (a plain word in them starts no lexeme); null if none is left. */
export function matchableText(text: SearchText, expansions: Expansions): SearchText | null {
  const groups = text.filter((g) => g.every((t) => t.kind !== 'word' || t.negated || expansions.get(t.text)?.length !== 0));
  return groups.length > 0 ? groups : null;
}

/** A tsquery as SQL with its bindings. */
export interface TsQuerySql {
  sql: string;
  bindings: string[];
}

/**
 * The search as a tsquery, and each group's parts: its words (all must match) and its excluded
 * terms (none may), each a tsquery of its own (null when there are none), for a condition that
 * tests the words in one vector and the exclusions in another.
 */
export interface TsQuery extends TsQuerySql {
  groups: Array<{ words: TsQuerySql | null; excluded: TsQuerySql | null }>;
}

/**
 * The tsquery as SQL with bindings. A plain word with expansions is the OR of its whole lexemes
 * (exact index entries); other terms are looked up both unstemmed (names and addresses are
 * indexed with `simple`) and with english stemming (headlines and summaries).
 */
export function tsqueryOf(text: SearchText, expansions: Expansions = new Map()): TsQuery {
  const term = (t: SearchTerm): TsQuerySql => {
    const lexemes = t.kind === 'word' && !t.negated ? expansions.get(t.text) : null;
    if (lexemes)
      return { sql: '?::tsquery', bindings: [lexemes.map((l) => `'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' | ')] };
    // Terms hold letters, digits and single spaces only: always valid to_tsquery input.
    const fn = t.kind === 'phrase' ? 'phraseto_tsquery' : 'to_tsquery';
    const value = t.kind === 'phrase' ? t.text : t.negated ? t.text : `${t.text}:*`;
    return { sql: `(${fn}('simple', ?) || ${fn}('english', ?))`, bindings: [value, value] };
  };
  const joined = (op: string) => (parts: TsQuerySql[]) =>
    parts.length === 0 ? null : { sql: `(${parts.map((p) => p.sql).join(op)})`, bindings: parts.flatMap((p) => p.bindings) };
  const [all, any] = [joined(' && '), joined(' || ')];
  const groups = text.map((group) => {
    const terms = group.map((t) => ({ ...term(t), negated: t.negated }));
    return {
      whole: all(terms.map((q) => (q.negated ? { ...q, sql: `!!${q.sql}` } : q)))!,
      words: all(terms.filter((q) => !q.negated)),
      excluded: any(terms.filter((q) => q.negated)),
    };
  });
  return { ...any(groups.map((g) => g.whole))!, groups: groups.map(({ words, excluded }) => ({ words, excluded })) };
}

/**
 * The same search with each word that starts no known word replaced by the most similar known
 * word (trigram similarity over `search_terms`); null when nothing changed.
 */
export async function correctTypos(db: Db, text: SearchText): Promise<SearchText | null> {
  const words = typoCandidates(text);
  return words.length === 0 ? null : withFixes(text, await nearestKnownWords(db, words));
}

/** The words of a search that typo correction looks at. */
export function typoCandidates(text: SearchText): string[] {
  return [
    ...new Set(
      text
        .flat()
        .filter((t) => t.kind === 'word' && !t.negated && t.text.length >= 3)
        .map((t) => t.text),
    ),
  ];
}

/** For each word that starts no known word, the most similar known word (if any is similar enough). */
export async function nearestKnownWords(db: Db, words: string[]): Promise<Map<string, string>> {
  // Known words one edit away first (swapped letters in short words share too few trigrams),
  // then the most similar by trigrams.
  const { rows } = await db.raw(
    `SELECT w.word,
            coalesce(
              (SELECT t.term FROM search_terms t WHERE t.term = ANY(w.edits)
               ORDER BY similarity(t.term, w.word) DESC, t.term LIMIT 1),
              (SELECT t.term FROM search_terms t WHERE t.term % w.word
               ORDER BY similarity(t.term, w.word) DESC, t.term LIMIT 1)) AS nearest
     FROM json_to_recordset(?::json) AS w(word text, edits text[])
     WHERE NOT EXISTS (SELECT 1 FROM search_terms t
                       WHERE t.term >= w.word COLLATE "C" AND t.term < (w.word || chr(1114111)) COLLATE "C")`,
    [JSON.stringify(words.map((word) => ({ word, edits: word.length <= MAX_EDITED ? oneEditAway(word) : [] })))],
  );
  return new Map((rows as Array<{ word: string; nearest: string | null }>).filter((r) => r.nearest).map((r) => [r.word, r.nearest!]));
}

/** The search with the fixed words replaced; null when there is nothing to fix. */
export function withFixes(text: SearchText, fixes: ReadonlyMap<string, string>): SearchText | null {
  if (fixes.size === 0) return null;
  return text.map((group) =>
    group.map((t) => (t.kind === 'word' && !t.negated && fixes.has(t.text) ? { ...t, text: fixes.get(t.text)! } : t)),
  );
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
// Longer words have trigrams enough, and their edits would run to thousands.
const MAX_EDITED = 20;

/** Every string one edit from `word`: a swap of neighbours, a letter left out, changed or added. */
export function oneEditAway(word: string): string[] {
  const chars = [...word];
  const edits = new Set<string>();
  for (let i = 0; i <= chars.length; i++) {
    const [head, tail] = [chars.slice(0, i).join(''), chars.slice(i)];
    if (tail.length > 1) edits.add(head + tail[1] + tail[0] + tail.slice(2).join(''));
    if (tail.length > 0) edits.add(head + tail.slice(1).join(''));
    for (const c of LETTERS) {
      if (tail.length > 0) edits.add(head + c + tail.slice(1).join(''));
      edits.add(head + c + tail.join(''));
    }
  }
  edits.delete(word);
  return [...edits];
}
