import { html, type SafeHtml } from '../../html.ts';
import { fieldLabel, valueText } from '../../listing-fields.ts';

type Op = { kind: 'same' | 'removed' | 'added'; text: string };

/** Word operations turning `before` into `after` (longest common subsequence; long texts: all removed, all added). */
function wordOps(before: string, after: string): Op[] {
  const a = before ? before.split(/(\s+)/) : [];
  const b = after ? after.split(/(\s+)/) : [];
  if (a.length * b.length > 250_000)
    return [...a.map((text) => ({ kind: 'removed' as const, text })), ...b.map((text) => ({ kind: 'added' as const, text }))];
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: Op[] = [];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: 'same', text: a[i++]! });
      j++;
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) ops.push({ kind: 'added', text: b[j++]! });
    else ops.push({ kind: 'removed', text: a[i++]! });
  }
  return ops;
}

/**
 * One side of a field's change: the whole text, its changed words marked by element and by words
 * (a screen reader hears "removed"/"added"; the eye sees strike-through, underline and the row's
 * Before/After label), never by colour alone.
 */
function side(ops: Op[], kind: 'removed' | 'added'): SafeHtml {
  const shown = ops.filter((o) => o.kind === 'same' || o.kind === kind);
  if (shown.every((o) => !o.text.trim())) return html`<span class="muted">(empty)</span>`;
  const word = kind === 'removed' ? 'removed' : 'added';
  return html`${shown.map((o) =>
    o.kind === 'same' || !o.text.trim()
      ? html`${o.text}`
      : kind === 'removed'
        ? html`<del><span class="visually-hidden">[${word}: </span>${o.text}<span class="visually-hidden">]</span></del>`
        : html`<ins><span class="visually-hidden">[${word}: </span>${o.text}<span class="visually-hidden">]</span></ins>`,
  )}`;
}

/** The fields of one edit, each as Before and After with the changed words marked. */
export function editDiff(changes: Record<string, { before: unknown; after: unknown }>): SafeHtml {
  return html`${Object.entries(changes).map(([field, { before, after }]) => {
    const ops = wordOps(valueText(before), valueText(after));
    return html`<div class="diff" data-change="${field}"><h4>${fieldLabel(field)}</h4>
<dl><dt>Before</dt><dd data-before>${side(ops, 'removed')}</dd><dt>After</dt><dd data-after>${side(ops, 'added')}</dd></dl></div>`;
  })}`;
}
