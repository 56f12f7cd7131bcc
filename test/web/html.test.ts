import test from 'ava';
import { escapeHtml, html, raw, SafeHtml } from '../../src/web/html.ts';

test('html escapes every interpolated value by default', (t) => {
  const evil = `<script>alert("x")</script>&'`;
  t.is(
    html`<p title="${evil}">${evil}</p>`.value,
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
  );
  t.is(escapeHtml('a & b'), 'a &amp; b');
});

test('nested html, raw, arrays and empty values', (t) => {
  const items = ['<a>', 'b'];
  t.is(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`.value, '<ul><li>&lt;a&gt;</li><li>b</li></ul>');
  t.is(html`${raw('<b>ok</b>')}`.value, '<b>ok</b>');
  t.is(html`[${null}${undefined}${false}${true}${0}]`.value, '[0]');
  t.true(html`x` instanceof SafeHtml);
  t.is(String(html`<i>${'&'}</i>`), '<i>&amp;</i>');
  // A look-alike object is text, not HTML.
  t.is(html`${{ value: '<b>', toString: () => '<b>' }}`.value, '&lt;b&gt;');
});
