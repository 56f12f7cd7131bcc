/** The one stylesheet, sent inline with the page's CSP nonce (pages are small; no extra request). */
export const CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #57606a; --line: #d0d7de;
  --accent: #0b57d0; --error: #b3261e; --ok: #146c2e; --panel: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9da7b3; --line: #30363d;
  --accent: #6ea8fe; --error: #ff8a80; --ok: #7ee2a8; --panel: #161b22; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg);
  overflow-wrap: break-word; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; }
header.site { border-bottom: 1px solid var(--line); }
header.site nav { max-width: 48rem; margin: 0 auto; padding: .75rem 1rem; display: flex; gap: 1rem; align-items: center;
  position: relative; }
header.site .brand { font-weight: 700; text-decoration: none; color: var(--fg); margin-right: auto; white-space: nowrap; }
header.site ul { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem 1rem; margin: 0; padding: 0; align-items: center; }
header.site summary { cursor: pointer; list-style: none; padding: .375rem .75rem; border: 1px solid var(--line); border-radius: 6px;
  color: var(--accent); font-weight: 600; }
header.site summary::-webkit-details-marker { display: none; }
header.site summary::after { content: " ▾"; }
header.site details[open] summary::after { content: " ▴"; }
@media (max-width: 47.99rem) {
  header.site details[open] ul { position: absolute; right: 1rem; top: 100%; z-index: 10; flex-direction: column; align-items: stretch;
    gap: 0; min-width: 14rem; max-width: calc(100vw - 2rem); background: var(--bg); border: 1px solid var(--line); border-radius: 6px;
    padding: .25rem 0; box-shadow: 0 4px 12px rgb(0 0 0 / .15); }
  header.site details[open] li > a, header.site details[open] li button.link { display: block; padding: .5rem 1rem; }
}
@media (min-width: 66rem) { header.site nav { max-width: 64rem; } header.site li { white-space: nowrap; } }
@supports selector(::details-content) { @media (min-width: 48rem) {
  header.site details.menu > summary { display: none; }
  header.site details.menu::details-content { content-visibility: visible; }
} }
main { max-width: 48rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
footer { max-width: 48rem; margin: 0 auto; padding: 1rem; color: var(--muted); font-size: .875rem; }
h1 { font-size: 1.75rem; margin: 1rem 0; overflow-wrap: anywhere; }
.field { margin: 0 0 1rem; }
label, legend { display: block; font-weight: 600; margin-bottom: .25rem; }
.hint { color: var(--muted); margin: 0 0 .25rem; font-size: .9rem; }
input[type=text], input[type=email], input[type=password] { width: 100%; max-width: 28rem; padding: .5rem; font: inherit;
  color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; }
input[type=number], input[type=date], select { max-width: 100%; padding: .5rem; font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--line); border-radius: 6px; }
select { width: 100%; max-width: 36rem; }
input[aria-invalid=true], select[aria-invalid=true] { border-color: var(--error); }
fieldset { border: 0; padding: 0; margin: 0 0 1rem; min-width: 0; }
fieldset.product { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; }
fieldset.product legend { padding: 0 .25rem; }
fieldset.choices { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: 0 1rem; }
fieldset.choices legend { grid-column: 1 / -1; }
.check { display: flex; gap: .5rem; align-items: baseline; font-weight: 400; }
button { font: inherit; padding: .5rem 1rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
  color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button.link { border: 0; background: none; color: var(--accent); padding: 0; text-decoration: underline; }
form.inline { display: inline; }
.providers { display: flex; flex-wrap: wrap; gap: .5rem; margin: 0 0 1.5rem; padding: 0; list-style: none; }
a.provider { display: inline-block; padding: .5rem 1rem; border: 1px solid var(--accent); border-radius: 6px; color: var(--accent);
  text-decoration: none; min-height: 44px; box-sizing: border-box; }
.error { color: var(--error); margin: 0 0 .25rem; }
.error-summary { border: 2px solid var(--error); border-radius: 6px; padding: .5rem 1rem; margin-bottom: 1rem; }
.error-summary h2 { font-size: 1.1rem; margin: .25rem 0; }
.notice { border-left: 4px solid var(--ok); background: var(--panel); padding: .5rem 1rem; }
.secret { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; background: var(--panel); padding: .75rem;
  border-radius: 6px; }
.secret code { font-size: 1rem; word-break: break-all; }
.secret + .secret, .secret + form { margin-top: .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
/* A header breaks between its words, never inside one ("Discou|nt"): its column is at least its longest word wide. */
th { overflow-wrap: normal; word-break: normal; hyphens: manual; }
@media (max-width: 40rem) {
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.stack tr { display: block; border-bottom: 1px solid var(--line); padding: .5rem 0; }
  table.stack td { display: block; border: 0; padding: .125rem 0; }
  table.stack td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
  table.stack tfoot tr { display: flex; justify-content: space-between; gap: 1rem; padding: .25rem 0; }
  table.stack tfoot th, table.stack tfoot td { border: 0; padding: 0; }
}
pre.mail { white-space: pre-wrap; background: var(--panel); padding: 1rem; border-radius: 6px; }
.muted { color: var(--muted); }
textarea { width: 100%; padding: .5rem; font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line);
  border-radius: 6px; }
textarea[aria-invalid=true] { border-color: var(--error); }
img.founder-photo { border-radius: 50%; object-fit: cover; flex: none; }
img.preview-image { max-width: 100%; height: auto; border: 1px solid var(--line); }
.byline, .founder { display: flex; gap: 1rem; align-items: center; }
.byline a.author { display: inline-flex; gap: .5rem; align-items: center; vertical-align: middle; }
.founder { align-items: flex-start; flex-wrap: wrap; } .founder .bio { flex: 1 1 20rem; }
.lead { font-size: 1.2rem; }
.missing { border-left: 4px solid var(--error); background: var(--panel); padding: .25rem 1rem; margin-bottom: 1rem; }
.missing h2 { font-size: 1.1rem; }
ol.feed { list-style: none; padding: 0; } ol.feed > li { border-bottom: 1px solid var(--line); }
.pager { display: flex; gap: 1rem; justify-content: space-between; margin: 1rem 0; }
.share-links { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; padding: 0; margin: .5rem 0; }
.share-links a { display: inline-block; padding: .5rem 0; }
form.search { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; margin-bottom: 1rem; }
form.search label { flex-basis: 100%; margin: 0; }
form.search input { flex: 1 1 12rem; padding: .5rem; font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--line); border-radius: 6px; }
.table-scroll { overflow-x: auto; }
pre.example { background: var(--panel); padding: .75rem; border-radius: 6px; overflow-x: auto; font-size: .85rem; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
section.operation h2 code, nav code { overflow-wrap: anywhere; }
section.operation { border-top: 1px solid var(--line); margin-top: 2rem; }
.billboard { background: var(--panel); border-bottom: 1px solid var(--line); text-align: center; padding: .5rem 1rem; }
.invoice .parties { display: flex; gap: 2rem; flex-wrap: wrap; }
.money { white-space: nowrap; overflow-wrap: normal; }
.address { white-space: pre-line; }
@media print { header.site, footer, .no-print { display: none; } main { max-width: none; } }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
/* Launch numbers: SVG charts shrink with the page. */
figure.chart { margin: 1.5rem 0; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
/* Owner pages: where a value came from, word diffs, the listing's links. */
.evidence, .evidence q, ul.changes li, .where dd, ul.manage li { overflow-wrap: anywhere; }
ins { background: color-mix(in srgb, var(--ok) 18%, transparent); }
del { background: color-mix(in srgb, var(--error) 18%, transparent); }
.choices { display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
`;
