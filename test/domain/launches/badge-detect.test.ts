import test from 'ava';
import { detectBadge } from '../../../src/domain/launches/badge-detect.ts';

// What counts as "the badge is on the owner's site": a visible <a href> to our exact host and
// the listing's page. Each case below is a way real pages get it wrong (or cheat).
const target = { baseUrl: 'https://directory.example', slug: 'acme-rockets' };
const PAGE = 'https://acme.example/';
const link = (href: string, attrs = '') =>
  `<a href="${href}"${attrs}><img src="https://directory.example/badges/acme-rockets.svg" alt="Acme"></a>`;
const page = (body: string, head = '') => `<!doctype html><html><head>${head}</head><body><main>${body}</main></body></html>`;
const detect = (body: string, head = '') => detectBadge(page(body, head), PAGE, target);

test('a plain link to the listing page counts, with or without trailing slash, query or fragment', (t) => {
  for (const href of [
    'https://directory.example/listings/acme-rockets',
    'https://directory.example/listings/acme-rockets/',
    'https://directory.example/listings/acme-rockets?ref=badge#top',
    'https://DIRECTORY.example./listings/acme-rockets',
    'http://directory.example/listings/acme-rockets',
    '//directory.example/listings/acme-rockets',
  ]) {
    const found = detect(`<p>We launched! ${link(href)}</p>`);
    t.true(found.present, href);
    t.deepEqual(found.rel, [], href);
  }
});

test('rel tokens of the counted link are recorded', (t) => {
  const found = detect(link('https://directory.example/listings/acme-rockets', ' rel="Nofollow  noopener"'));
  t.true(found.present);
  t.deepEqual(found.rel, ['nofollow', 'noopener']);
  t.regex(found.detail, /rel="nofollow noopener"/);
});

test('relative links count when the page is on our host, and <base href> is honoured', (t) => {
  t.true(detectBadge(page(link('/listings/acme-rockets')), 'https://directory.example/partners', target).present);
  t.true(detect(link('listings/acme-rockets'), '<base href="https://directory.example/">').present);
  // On the owner's own host a relative link points at the owner's site, not ours.
  t.false(detect(link('/listings/acme-rockets')).present);
});

test('links inside comments, <template>, <script> and <noscript> do not count', (t) => {
  const href = 'https://directory.example/listings/acme-rockets';
  t.false(detect(`<!-- ${link(href)} -->`).present);
  const inTemplate = detect(`<template>${link(href)}</template>`);
  t.false(inTemplate.present);
  t.regex(inTemplate.detail, /<template>/);
  t.false(detect(`<script>document.write('${link(href)}')</script>`).present);
  t.false(detect(`<script type="text/html">${link(href)}</script>`).present);
  t.false(detect(`<noscript>${link(href)}</noscript>`).present);
});

test('hidden links do not count: hidden attribute, display:none, visibility:hidden on it or an ancestor', (t) => {
  const href = 'https://directory.example/listings/acme-rockets';
  for (const body of [
    `<div hidden>${link(href)}</div>`,
    link(href, ' hidden'),
    `<div style="display:none">${link(href)}</div>`,
    `<section><div style="color: red; DISPLAY : none ;">${link(href)}</div></section>`,
    link(href, ' style="visibility: hidden"'),
    link(href, ' aria-hidden="true"'),
  ]) {
    const found = detect(body);
    t.false(found.present, body);
    t.regex(found.detail, /was found, but it is/, body);
  }
  // A visible copy next to a hidden one still counts.
  t.true(detect(`<div hidden>${link(href)}</div><footer>${link(href)}</footer>`).present);
});

test('lookalike hosts and other listings do not count', (t) => {
  for (const href of [
    'https://directory.example.evil.test/listings/acme-rockets',
    'https://evil.test/directory.example/listings/acme-rockets',
    'https://directory.example@evil.test/listings/acme-rockets',
    'https://evil.test/?u=https://directory.example/listings/acme-rockets',
    'https://xdirectory.example/listings/acme-rockets',
    'https://directory.example:8443/listings/acme-rockets',
    'https://user:pw@directory.example/listings/acme-rockets',
    'https://directory.example/listings/acme-rockets-2',
    'https://directory.example/listings/acme',
    'https://directory.example/listing/acme-rockets',
    'https://directory.example/listings/acme-rockets/reviews',
    'javascript:location="https://directory.example/listings/acme-rockets"',
  ]) {
    t.false(detect(link(href)).present, href);
  }
});

test('the address as plain text, or an <a> without href, is not a badge', (t) => {
  const asText = detect('<p>Find us at https://directory.example/listings/acme-rockets</p>');
  t.false(asText.present);
  t.regex(asText.detail, /not as a visible link/);
  t.false(detect('<a name="https://directory.example/listings/acme-rockets">badge</a>').present);
  const nothing = detect('<p>Hello</p>');
  t.false(nothing.present);
  t.regex(nothing.detail, /No link to https:\/\/directory\.example\/listings\/acme-rockets/);
});

test('broken markup does not throw', (t) => {
  for (const html of ['', '<a href=', '<<<>>>', '<a href="https://directory.example/listings/acme-rockets"', '\u0000\uffff']) {
    t.notThrows(() => detectBadge(html, PAGE, target));
  }
  t.true(detectBadge('<a href="https://directory.example/listings/acme-rockets">x', PAGE, target).present);
});
