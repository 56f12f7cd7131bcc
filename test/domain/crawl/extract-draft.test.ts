import test from 'ava';
import { CATEGORY_SLUGS, extractDraft } from '../../../src/domain/crawl/index.ts';
import { classifySocialUrl } from '../../../src/domain/crawl/extract-socials.ts';
import { truncate } from '../../../src/domain/crawl/text.ts';

const URL_ = 'https://www.example.com/';
const draft = (html: string, more: { url: string; html: string }[] = []) =>
  extractDraft({ url: URL_, pages: [{ url: URL_, html }, ...more] });

test('broken JSON-LD is ignored and the rest still extracted', (t) => {
  const { fields } = draft(`<html><head><title>Widgets Inc | Home</title>
    <script type="application/ld+json">{"@type": "Organization", "name": "Broken</script>
    <meta property="og:site_name" content="Widgets"></head><body><h1>We make widgets</h1></body></html>`);
  t.is(fields.name, 'Widgets');
  t.is(fields.headline, 'We make widgets');
});

test('JSON-LD @graph arrays and arrays of nodes are flattened', (t) => {
  const { fields, evidence } = draft(`<script type="application/ld+json">[
    {"@context":"https://schema.org","@graph":[{"@type":"WebPage","name":"Home"},
      {"@type":["Corporation"],"name":"Graphy","foundingDate":"2015","logo":{"@type":"ImageObject","url":"img/logo.svg"},
       "address":"Paris, France","numberOfEmployees":{"@type":"QuantitativeValue","minValue":11,"maxValue":50},
       "founder":{"@type":"Person","name":"Marie Curie"}}]},
    {"@type":"FAQPage","mainEntity":{"@type":"Question","name":"Why graphs?","acceptedAnswer":{"text":"Because &amp; they <b>connect</b>."}}}]</script>`);
  t.is(fields.name, 'Graphy');
  t.is(fields.logo_url, 'https://www.example.com/img/logo.svg');
  t.deepEqual(fields.facts, { founded_year: 2015, founders: ['Marie Curie'], location: 'Paris, France', employees: '11-50' });
  t.deepEqual(fields.faqs, [{ question: 'Why graphs?', answer: 'Because & they connect.' }]);
  t.true(evidence.logo_url!.snippet.startsWith('"logo"'));
});

test('a long headline is cut on a word boundary within 70 characters', (t) => {
  const h1 = 'The remarkably thorough and entirely dependable platform for organising every single thing you own';
  const { fields } = draft(`<title>Thing</title><h1>${h1}</h1>`);
  const headline = fields.headline!;
  t.true(headline.length <= 70);
  t.true(headline.endsWith('…'));
  t.true(h1.startsWith(headline.slice(0, -1)));
  t.is(h1[headline.length - 1], ' ');
  t.is(headline, 'The remarkably thorough and entirely dependable platform for…');
});

test('summary is at most 300 characters and falls back to the first substantial paragraph', (t) => {
  const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ') + '.';
  const { fields, evidence } = draft(`<title>X</title><body><p>Short.</p><p>${long}</p></body>`);
  t.true(fields.summary!.length <= 300);
  t.true(fields.summary!.endsWith('…'));
  t.true(fields.summary!.startsWith('word0 word1'));
  t.true(evidence.summary!.snippet.length <= 200);
});

test('truncate keeps short text and cuts long text on a word boundary', (t) => {
  t.is(truncate('  short   text ', 70), 'short text');
  t.is(truncate('aaa bbb ccc ddd', 10), 'aaa bbb…');
});

test('share and intent links are not socials; profiles are', (t) => {
  const { fields } = draft(`<body>
    <a href="https://twitter.com/intent/tweet?url=x">Tweet</a>
    <a href="https://twitter.com/share?url=x">Share</a>
    <a href="https://www.facebook.com/sharer/sharer.php?u=x">FB</a>
    <a href="https://www.linkedin.com/sharing/share-offsite/?url=x">LI</a>
    <a href="https://www.linkedin.com/shareArticle?url=x">LI</a>
    <a href="https://x.com/acme/status/123">Post</a>
    <a href="https://x.com/acme">X</a>
    <a href="https://www.instagram.com/p/abc/">Post</a>
    <a href="https://instagram.com/acme_co">IG</a>
    <a href="https://discord.gg/abc123">Discord</a>
    <a href="https://bsky.app/profile/acme.bsky.social">Bsky</a>
    <a href="https://www.threads.net/@acme">Threads</a>
    <a href="https://github.com/features/actions">GH features</a>
    <a href="https://www.producthunt.com/products/acme">PH</a>
    <a href="https://www.tiktok.com/@acme">TT</a>
    <a href="https://mastodon.social/@acme">Masto</a>
  </body>`);
  t.deepEqual(fields.socials, {
    twitter: 'https://x.com/acme',
    instagram: 'https://instagram.com/acme_co',
    discord: 'https://discord.gg/abc123',
    bluesky: 'https://bsky.app/profile/acme.bsky.social',
    threads: 'https://www.threads.net/@acme',
    producthunt: 'https://www.producthunt.com/products/acme',
    tiktok: 'https://www.tiktok.com/@acme',
    mastodon: 'https://mastodon.social/@acme',
  });
  t.is(classifySocialUrl('https://www.facebook.com/acme')?.platform, 'facebook');
  t.is(classifySocialUrl('https://www.youtube.com/watch?v=1'), null);
});

test('relative logo and image URLs are resolved; non-http ones dropped', (t) => {
  const { fields } = extractDraft({
    url: 'https://example.com/en/',
    pages: [
      {
        url: 'https://example.com/en/',
        html: `<head><link rel="icon" href="javascript:alert(1)"><link rel="apple-touch-icon" href="../icons/touch.png">
          <meta property="og:image" content="//cdn.example.com/og.png"></head>`,
      },
    ],
  });
  t.is(fields.logo_url, 'https://example.com/icons/touch.png');
  t.is(fields.image_url, 'https://cdn.example.com/og.png');
});

test('visible FAQs from details, dl and question headings', (t) => {
  const { fields, evidence } = extractDraft({
    url: URL_,
    pages: [
      { url: URL_, html: '<h1>Home</h1>' },
      {
        url: `${URL_}faq`,
        html: `<details><summary>Can I cancel anytime?</summary><p>Yes, from the billing page.</p></details>
          <dl><dt>Do you offer refunds?</dt><dd>Within 30 days.</dd></dl>
          <h3>Is my data safe?</h3><p>It is encrypted at rest.</p><p>And in transit.</p><h3>Next section</h3>`,
      },
    ],
  });
  t.deepEqual(fields.faqs, [
    { question: 'Can I cancel anytime?', answer: 'Yes, from the billing page.' },
    { question: 'Do you offer refunds?', answer: 'Within 30 days.' },
    { question: 'Is my data safe?', answer: 'It is encrypted at rest. And in transit.' },
  ]);
  t.is(evidence.faqs!.source_url, `${URL_}faq`);
});

test('script, style and noscript text is ignored', (t) => {
  const { fields } = draft(`<title>Quiet</title><body><script>var s = "Founded in 1990 by John Smith";</script>
    <noscript>team of 500</noscript><style>.a{}</style><p>Hello there, this is a quiet little website about nothing.</p></body>`);
  t.deepEqual(fields.facts, {});
  t.is(fields.summary, 'Hello there, this is a quiet little website about nothing.');
});

test('categories come from CATEGORY_SLUGS, best first, empty when nothing scores', (t) => {
  const { fields, evidence } = draft(`<title>Ledgerly — Invoicing and accounting for freelancers</title>
    <meta name="description" content="Send invoices, track expenses and get paid: bookkeeping without the spreadsheets.">
    <h2>Payments</h2>`);
  t.is(fields.categories[0], 'finance');
  t.true(fields.categories.length <= 3);
  t.true(fields.categories.every((c) => (CATEGORY_SLUGS as readonly string[]).includes(c)));
  t.truthy(evidence.categories);
  t.deepEqual(draft('<title>Zyx</title><p>Hmm.</p>').fields.categories, []);
});

test('contact email prefers a same-domain contact address; falls back to text on the contact page', (t) => {
  const a = draft(`<a href="mailto:jobs@other.org">Jobs</a><a href="mailto:ceo@example.com">CEO</a>
    <a href="mailto:hello@example.com?subject=Hi">Hello</a>`);
  t.is(a.fields.contact_email, 'hello@example.com');
  const b = extractDraft({
    url: URL_,
    pages: [
      { url: URL_, html: '<h1>Home</h1><p>mail me at nobody@example.com</p>' },
      { url: `${URL_}contact`, html: '<p>Reach us at team@example.com any time.</p>' },
    ],
  });
  t.is(b.fields.contact_email, 'team@example.com');
  t.is(b.evidence.contact_email!.source_url, `${URL_}contact`);
});

test('conservative text facts: copyright legal names and no guesses', (t) => {
  const { fields } = draft(`<p>Our founders started small.</p><p>based in the heart of the city</p>
    <footer>Copyright 2020-2024 Nimbus Cloud, Inc. All rights reserved.</footer>`);
  t.deepEqual(fields.facts, { legal_name: 'Nimbus Cloud, Inc.' });
});

test('weird input never throws', (t) => {
  for (const html of [
    '',
    '<<<>>>',
    '<html><head><script type="application/ld+json">null</script>',
    '\u0000\uFFFF',
    '<a href="mailto:">x</a><a href="http://[">y</a>',
  ]) {
    t.notThrows(() => draft(html));
  }
  t.notThrows(() => extractDraft({ url: '', pages: [] }));
  t.deepEqual(extractDraft({ url: URL_, pages: [] }).fields.faqs, []);
});
