/**
 * `bash scripts/node24.sh bench/personal-fill.ts`: what filling a kept page's personal slots costs
 * (src/web/personal-slots.ts), without the request around it: as it was (the page decoded, scanned
 * for markers twice, replaced and encoded again per request) and now (cut once into byte chunks;
 * a request copies them around the parts), for a front page and a 300-comment listing page.
 */
import { slot, slotData, splitPage, joinSlots, slotsOf } from '../src/web/personal-slots.ts';
const SLOT = /<!--p:([a-z]+):([A-Za-z0-9_.-]*)-->([\s\S]*?)<!--\/p-->/g;
for (const [label, count, gap, partSize] of [
  ['front page (37 KB, 21 slots)', 20, 1700, 600],
  ['300-comment listing (100 KB, 302 slots)', 300, 300, 300],
] as const) {
  const parts = [String(slot('nav', '', 'links'))];
  for (let i = 0; i < count; i++)
    parts.push(`<li>${'x'.repeat(gap)}</li>${slot('vote', slotData({ id: i, slug: 'a', name: 'A <b>', returnTo: '/x' }), 'visitor')}`);
  const page = Buffer.from(parts.join('\n'));
  const fills = slotsOf(page.toString()).map((_, i) => `<form>${i}${'y'.repeat(partSize)}</form>`);
  const old = () => {
    const text = page.toString();
    void slotsOf(text);
    let i = 0;
    return Buffer.from(text.replace(SLOT, () => fills[i++]!));
  };
  const now = () => joinSlots(splitPage(page), fills);
  if (old().compare(now()) !== 0) throw new Error('differ');
  for (const [name, f] of [
    ['before: decode, scan twice, replace, encode', old],
    ['after: pre-split chunks, copy + parts', now],
  ] as const) {
    for (let w = 0; w < 300; w++) f();
    const n = 3000;
    const t = process.cpuUsage();
    for (let k = 0; k < n; k++) f();
    const u = process.cpuUsage(t);
    console.log(`${label} ${page.length} B — ${name}: ${((u.user + u.system) / n).toFixed(1)} µs`);
  }
}
