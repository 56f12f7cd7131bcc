/**
 * The JSON text of shared answers. Why this exists: a kept answer (a remembered search page) is
 * sent to many callers, and writing its JSON again for each of them cost more than finding it;
 * MCP even writes it twice (as structured content and, escaped, as its text block). An answer
 * marked shared is never changed again (as every kept answer, it is shared by all its callers),
 * so its JSON is made once and kept with it for as long as the answer lives.
 */
const shared = new WeakSet<object>();
const texts = new WeakMap<object, string>();

/**
 * Marks a plain JSON value as shared: from now on nothing changes it or anything in it. Not
 * frozen: freezing a search page cost about as much as writing its JSON, for every new page.
 */
export function markShared<T>(value: T): T {
  if (value !== null && typeof value === 'object') shared.add(value);
  return value;
}

/** Whether `value` was marked shared (`markShared`). */
export function isShared(value: unknown): boolean {
  return value !== null && typeof value === 'object' && shared.has(value);
}

/** `JSON.stringify(value)`, made only once for a shared value. */
export function jsonText(value: unknown): string {
  if (!isShared(value)) return JSON.stringify(value);
  const kept = value as object;
  let text = texts.get(kept);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(kept, text);
  }
  return text;
}
