/**
 * The JSON text of answers. Why this exists: a kept answer (a remembered search page) is sent to
 * many callers, and writing its JSON again for each of them cost more than finding it; MCP even
 * writes it twice (as structured content and, escaped, as its text block). A value frozen whole
 * cannot change, so its JSON is made once and kept with it for as long as the value lives.
 */
const frozenWhole = new WeakSet<object>();
const texts = new WeakMap<object, string>();

/** `JSON.stringify(value)`, made only once for a value frozen by `deepFreeze`. */
export function jsonText(value: unknown): string {
  if (!isFrozenWhole(value)) return JSON.stringify(value);
  const frozen = value as object;
  let text = texts.get(frozen);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(frozen, text);
  }
  return text;
}

/** Whether `value` was frozen whole by `deepFreeze`: shared, and unchanging inside too. */
export function isFrozenWhole(value: unknown): boolean {
  return value !== null && typeof value === 'object' && frozenWhole.has(value);
}

/**
 * Freezes a plain JSON value (objects, arrays, strings, numbers, booleans, null) and everything in
 * it, so that callers can share it and `jsonText` keep its JSON. An object frozen some other way
 * is not trusted to be frozen inside too: its JSON is made every time.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !frozenWhole.has(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
    frozenWhole.add(value);
  }
  return value;
}
