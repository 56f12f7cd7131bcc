/**
 * The one polling helper of the tests: calls `check` until it answers something other than
 * `false`, `undefined` or `null`, and returns that answer. Polls every `intervalMs` (50 ms) and
 * fails after `timeoutMs` (30 s) saying what it waited for; an error thrown by `check` ends the
 * wait at once. Wait for the event that shows some work was done, never with a fixed sleep.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 30_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== false && value !== undefined && value !== null) return value as Exclude<T, false | null | undefined>;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
