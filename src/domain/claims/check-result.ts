/** What one check saw: `error` is transient (SERVFAIL, time-out, 5xx) and never counts as not found. */
export type CheckOutcome = 'found' | 'not_found' | 'error';

export interface CheckResult {
  result: CheckOutcome;
  /** What was seen, for the claimant: the TXT values found, the HTTP status of the file, ... */
  detail: string;
}

/** Longest detail kept: values seen on someone else's server are quoted, never in full. */
const MAX_DETAIL = 500;

/** Quotes a value seen on the claimant's server, shortened and without control characters. */
export function quoted(value: string, max = 80): string {
  const clean = value.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return JSON.stringify(clean.length > max ? `${clean.slice(0, max)}…` : clean);
}

export const outcome = (result: CheckOutcome, detail: string): CheckResult => ({
  result,
  detail: detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL - 1)}…` : detail,
});
