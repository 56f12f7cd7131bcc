/** Styles of the browse components (src/web/browse-components.ts): cards, logos, tags, category lists. */
export const BROWSE_CSS = `
.cards { list-style: none; margin: 0 0 1.5rem; padding: 0; }
.card { display: flex; align-items: center; gap: .75rem; padding: .75rem 0; border-bottom: 1px solid var(--line); min-width: 0; }
.card .rank { min-width: 1.5rem; text-align: right; font-weight: 700; color: var(--muted); }
.card-body { flex: 1 1 auto; min-width: 0; overflow-wrap: break-word; }
.card-body h2, .card-body h3 { font-size: 1.05rem; margin: 0; }
.card-body p { margin: .125rem 0 0; color: var(--muted); }
.card-aside { flex: 0 0 auto; text-align: right; }
.logo { flex: 0 0 auto; border-radius: 10px; object-fit: cover; }
.logo-48 { width: 48px; height: 48px; } .logo-96 { width: 96px; height: 96px; border-radius: 18px; }
.avatar { display: inline-flex; align-items: center; justify-content: center; font-weight: 700; color: #fff; }
.logo-48.avatar { font-size: 1.4rem; } .logo-96.avatar { font-size: 2.8rem; }
.avatar-0 { background: #0b57d0; } .avatar-1 { background: #146c2e; } .avatar-2 { background: #8e24aa; }
.avatar-3 { background: #b3261e; } .avatar-4 { background: #00695c; } .avatar-5 { background: #5d4037; }
.tag { display: inline-block; font-size: .75rem; font-weight: 600; padding: 0 .4rem; border-radius: 4px; border: 1px solid var(--accent); color: var(--accent); vertical-align: middle; }
.categories { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; }
.listing-head { display: flex; gap: 1rem; align-items: center; margin-bottom: 1rem; }
.listing-head .lead { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.preview { display: block; max-width: 100%; height: auto; border-radius: 8px; border: 1px solid var(--line); }
.makers { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 1rem; }
.makers a { display: inline-flex; align-items: center; gap: .5rem; }
.makers img { border-radius: 50%; }
@media (max-width: 30rem) { .card { flex-wrap: wrap; } .card-aside { flex-basis: 100%; text-align: left; padding-left: calc(48px + .75rem); } }
`;
