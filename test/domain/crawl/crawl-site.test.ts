import test from 'ava';
import { CrawlError, crawlSite, extractDraft } from '../../../src/domain/crawl/index.ts';
import { pickSecondaryPages } from '../../../src/domain/crawl/crawl-site.ts';
import type { CrawlOptions } from '../../../src/domain/crawl/index.ts';
import { closedPort, html, OPTIONS, redirect, serve, text } from './helpers.ts';
import type { Handler, TestSite } from './helpers.ts';

async function withSite<T>(routes: Record<string, Handler>, fn: (site: TestSite) => Promise<T>): Promise<T> {
  const site = await serve(routes);
  try {
    return await fn(site);
  } finally {
    await site.close();
  }
}

async function crawlError(t: { fail(msg: string): void }, url: string, options: CrawlOptions = OPTIONS): Promise<CrawlError> {
  try {
    await crawlSite(url, options);
  } catch (err) {
    if (err instanceof CrawlError) return err;
    throw err;
  }
  t.fail(`crawlSite(${url}) did not fail`);
  throw new Error('unreachable');
}

const RICH_HOME = `<!doctype html><html><head>
<title>Acme Analytics | Product analytics for developers</title>
<meta name="description" content="Acme Analytics gives developers privacy-friendly product analytics dashboards in minutes.">
<meta property="og:title" content="Acme Analytics - Product analytics for developers">
<meta property="og:image" content="/img/og.png">
<meta property="og:site_name" content="Acme Site">
<link rel="icon" href="/favicon.ico">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Acme Analytics",
"legalName":"Acme Analytics GmbH","foundingDate":"2019-03-01",
"founders":[{"@type":"Person","name":"Jane Doe"},{"@type":"Person","name":"John Roe"}],
"address":{"@type":"PostalAddress","addressLocality":"Berlin","addressCountry":"Germany"},
"numberOfEmployees":{"@type":"QuantitativeValue","value":42},"email":"hello@acme.example","telephone":"+49 30 1234567",
"logo":"/logo.png","sameAs":["https://twitter.com/acmeanalytics","https://www.linkedin.com/company/acme-analytics","https://github.com/acme"]},
{"@type":"WebSite","name":"Acme website"}]}</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"FAQPage","mainEntity":[
{"@type":"Question","name":"Is there a free plan?","acceptedAnswer":{"@type":"Answer","text":"<p>Yes, up to 10,000 events a month.</p>"}},
{"@type":"Question","name":"Do you use cookies?","acceptedAnswer":{"@type":"Answer","text":"No. Acme is cookie-free."}}]}</script>
<style>body { color: red }</style>
</head><body>
<nav><a href="/pricing">Pricing</a> <a href="/about">About</a> <a href="/blog/post-1">Blog</a></nav>
<h1>Product analytics for developers</h1>
<p>Understand how people use your product without tracking them across the web.</p>
<a href="https://twitter.com/intent/tweet?text=hi">Share on X</a>
<a href="https://www.facebook.com/sharer/sharer.php?u=https://acme.example">Share on Facebook</a>
<a href="https://www.youtube.com/@acme">YouTube</a>
<a href="mailto:hello@acme.example">Email us</a>
<footer>© 2024 Acme Analytics GmbH. All rights reserved.</footer>
</body></html>`;

test('rich JSON-LD site: every field and its evidence', async (t) => {
  await withSite(
    {
      '/': html(RICH_HOME),
      '/about': html('<html><body><h1>About Acme</h1><p>We build analytics.</p></body></html>'),
      '/pricing': html('<html><body><h1>Pricing</h1><p>Free and paid plans.</p></body></html>'),
    },
    async (site) => {
      const result = await crawlSite(site.url, OPTIONS);
      t.is(result.url, site.url);
      t.deepEqual(
        result.pages.map((p) => p.url),
        [site.url, `${site.url}about`, `${site.url}pricing`],
      );
      t.false(site.requests.includes('/blog/post-1'));
      const { fields, evidence } = extractDraft(result);
      t.is(fields.name, 'Acme Analytics');
      t.is(fields.headline, 'Product analytics for developers');
      t.is(fields.summary, 'Acme Analytics gives developers privacy-friendly product analytics dashboards in minutes.');
      t.is(fields.logo_url, `${site.url}logo.png`);
      t.is(fields.image_url, `${site.url}img/og.png`);
      t.deepEqual(fields.facts, {
        legal_name: 'Acme Analytics GmbH',
        founded_year: 2019,
        founders: ['Jane Doe', 'John Roe'],
        location: 'Berlin, Germany',
        employees: '42',
        email: 'hello@acme.example',
        phone: '+49 30 1234567',
      });
      t.deepEqual(fields.socials, {
        twitter: 'https://twitter.com/acmeanalytics',
        linkedin: 'https://www.linkedin.com/company/acme-analytics',
        github: 'https://github.com/acme',
        youtube: 'https://www.youtube.com/@acme',
      });
      t.deepEqual(fields.faqs, [
        { question: 'Is there a free plan?', answer: 'Yes, up to 10,000 events a month.' },
        { question: 'Do you use cookies?', answer: 'No. Acme is cookie-free.' },
      ]);
      t.deepEqual(fields.categories, ['analytics', 'developer-tools']);
      t.is(fields.contact_email, 'hello@acme.example');

      const expectedKeys = [
        'name',
        'headline',
        'summary',
        'logo_url',
        'image_url',
        'faqs',
        'categories',
        'contact_email',
        ...Object.keys(fields.facts).map((k) => `facts.${k}`),
        ...Object.keys(fields.socials).map((k) => `socials.${k}`),
      ].sort();
      t.deepEqual(Object.keys(evidence).sort(), expectedKeys);
      for (const [key, ev] of Object.entries(evidence)) {
        t.is(ev.source_url, site.url, key);
        t.true(ev.snippet.length > 0 && ev.snippet.length <= 200, key);
      }
      t.true(evidence.name!.snippet.includes('Acme Analytics'));
      t.true(evidence.headline!.snippet.includes('og:title'));
      t.true(evidence['facts.founded_year']!.snippet.includes('2019-03-01'));
      t.true(evidence['facts.founders']!.snippet.includes('Jane Doe'));
      t.true(evidence['socials.youtube']!.snippet.includes('https://www.youtube.com/@acme'));
      t.true(evidence['socials.twitter']!.snippet.includes('sameAs'));
      t.true(evidence.logo_url!.snippet.includes('/logo.png'));
      t.true(evidence.contact_email!.snippet.includes('mailto:hello@acme.example'));
      t.true(evidence.faqs!.snippet.includes('Is there a free plan?'));
    },
  );
});

test('bare HTML site: fields from title, h1 and paragraph; null elsewhere', async (t) => {
  await withSite(
    {
      '/': html(`<html><head><title>Bare Tools — Simple utilities for makers</title></head><body>
        <h1>Simple utilities for makers</h1>
        <p>Bare Tools is a small collection of command-line utilities that make everyday file chores quick.</p>
        <footer><p>© 2023 Bare Tools Ltd.</p></footer></body></html>`),
    },
    async (site) => {
      const result = await crawlSite(site.url, OPTIONS);
      t.is(result.pages.length, 1);
      const { fields, evidence } = extractDraft(result);
      t.deepEqual(fields, {
        name: 'Bare Tools',
        headline: 'Simple utilities for makers',
        summary: 'Bare Tools is a small collection of command-line utilities that make everyday file chores quick.',
        logo_url: null,
        image_url: null,
        facts: { legal_name: 'Bare Tools Ltd.' },
        socials: {},
        faqs: [],
        categories: [],
        contact_email: null,
      });
      t.deepEqual(Object.keys(evidence).sort(), ['facts.legal_name', 'headline', 'name', 'summary']);
      t.is(evidence['facts.legal_name']!.snippet, '© 2023 Bare Tools Ltd.');
      t.is(evidence.name!.source_url, site.url);
    },
  );
});

test('facts on the about page carry the about URL as evidence', async (t) => {
  await withSite(
    {
      '/': html(`<html><head><title>Engines</title></head><body><h1>Analytical engines for everyone</h1>
        <a href="/about">About us</a> <a href="/blog">Blog</a> <a href="mailto:info@engines.example">Write</a></body></html>`),
      '/about': html(`<html><body><h1>Our story</h1>
        <p>Founded in 2017 by Ada Lovelace and Charles Babbage, Engines builds calculating machines.</p>
        <p>We are headquartered in London, United Kingdom, and have a team of 25.</p></body></html>`),
      '/blog': html('<html><body>Founded in 1999 by Nobody Here</body></html>'),
    },
    async (site) => {
      const result = await crawlSite(site.url, OPTIONS);
      const about = `${site.url}about`;
      t.deepEqual(
        result.pages.map((p) => p.url),
        [site.url, about],
      );
      t.false(site.requests.includes('/blog'));
      const { fields, evidence } = extractDraft(result);
      t.deepEqual(fields.facts, {
        founded_year: 2017,
        founders: ['Ada Lovelace', 'Charles Babbage'],
        location: 'London, United Kingdom',
        employees: '25',
      });
      for (const key of ['founded_year', 'founders', 'location', 'employees']) {
        t.is(evidence[`facts.${key}`]!.source_url, about, key);
      }
      t.true(evidence['facts.founded_year']!.snippet.includes('Founded in 2017'));
      t.true(evidence['facts.location']!.snippet.includes('headquartered in London'));
      t.is(fields.contact_email, 'info@engines.example');
    },
  );
});

test('redirects: followed to the final URL', async (t) => {
  await withSite({ '/': redirect('/home'), '/home': html('<title>Home Co</title><h1>Hi</h1>') }, async (site) => {
    const result = await crawlSite(site.url, OPTIONS);
    t.is(result.url, `${site.url}home`);
    t.is(result.pages[0]!.url, `${site.url}home`);
  });
});

test('redirects: a loop fails with too_many_redirects', async (t) => {
  await withSite({ '/a': redirect('/b', 302), '/b': redirect('/a', 307) }, async (site) => {
    const err = await crawlError(t, `${site.url}a`);
    t.is(err.code, 'too_many_redirects');
    t.regex(err.message, /more than 5 times/);
  });
});

test('redirects: to the cloud metadata address is refused even when private networks are allowed', async (t) => {
  await withSite({ '/': redirect('http://169.254.169.254/latest/meta-data/') }, async (site) => {
    const err = await crawlError(t, site.url);
    t.is(err.code, 'address_refused');
    t.regex(err.message, /169\.254\.169\.254/);
    t.regex(err.message, /link-local/);
  });
});

test('redirects: to an IPv4-compatible IPv6 loopback is refused on the hop, even when private networks are allowed', async (t) => {
  await withSite({ '/page': html('<h1>inside</h1>') }, async (inside) => {
    await withSite({ '/': redirect(`http://[::127.0.0.1]:${inside.port}/page`) }, async (site) => {
      const err = await crawlError(t, site.url);
      t.is(err.code, 'address_refused');
      t.regex(err.message, /IPv4-compatible/);
      t.is(inside.requests.length, 0);
    });
  });
});

test('loopback site is refused when private networks are not allowed', async (t) => {
  await withSite({ '/': html('<h1>hi</h1>') }, async (site) => {
    const err = await crawlError(t, site.url, { ...OPTIONS, allowPrivateNetworks: false });
    t.is(err.code, 'address_refused');
    t.regex(err.message, /127\.0\.0\.1/);
    t.is(site.requests.length, 0);
  });
});

test('loopback host name is refused at connect time when private networks are not allowed', async (t) => {
  await withSite({ '/': html('<h1>hi</h1>') }, async (site) => {
    const err = await crawlError(t, `http://localhost:${site.port}/`, { ...OPTIONS, allowPrivateNetworks: false });
    t.is(err.code, 'address_refused');
    t.regex(err.message, /localhost/);
    t.is(site.requests.length, 0);
  });
});

test('redirects: to another loopback port works when allowed', async (t) => {
  await withSite({ '/page': html('<title>Other</title><h1>Other site</h1>') }, async (other) => {
    await withSite({ '/': redirect(`${other.url}page`) }, async (site) => {
      const result = await crawlSite(site.url, OPTIONS);
      t.is(result.url, `${other.url}page`);
      t.true(other.requests.includes('/robots.txt'));
    });
  });
});

test('robots.txt disallowing everything fails with robots_disallowed', async (t) => {
  await withSite({ '/robots.txt': text('User-agent: *\nDisallow: /\n'), '/': html('<h1>x</h1>') }, async (site) => {
    const err = await crawlError(t, site.url);
    t.is(err.code, 'robots_disallowed');
    t.regex(err.message, /robots\.txt/);
    t.false(site.requests.includes('/'));
  });
});

test('robots.txt 404 allows crawling', async (t) => {
  await withSite({ '/': html('<h1>x</h1>') }, async (site) => {
    const result = await crawlSite(site.url, OPTIONS);
    t.is(result.pages.length, 1);
    t.deepEqual(site.requests, ['/robots.txt', '/']);
  });
});

test('robots.txt 500 fails with robots_disallowed', async (t) => {
  await withSite({ '/robots.txt': text('oops', 500), '/': html('<h1>x</h1>') }, async (site) => {
    const err = await crawlError(t, site.url);
    t.is(err.code, 'robots_disallowed');
    t.regex(err.message, /500/);
  });
});

test('robots.txt Disallow: /about keeps the about page out', async (t) => {
  await withSite(
    {
      '/robots.txt': text('User-agent: *\nDisallow: /about\n'),
      '/': html('<h1>x</h1><a href="/about">About</a><a href="/contact">Contact</a>'),
      '/about': html('<p>Founded in 2010</p>'),
      '/contact': html('<p>Write to hello@example.com</p>'),
    },
    async (site) => {
      const result = await crawlSite(site.url, OPTIONS);
      t.deepEqual(
        result.pages.map((p) => p.url),
        [site.url, `${site.url}contact`],
      );
      t.false(site.requests.includes('/about'));
    },
  );
});

test('robots.txt rules for the crawler user agent apply', async (t) => {
  await withSite(
    { '/robots.txt': text('User-agent: TestBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n'), '/': html('<h1>x</h1>') },
    async (site) => {
      const err = await crawlError(t, site.url);
      t.is(err.code, 'robots_disallowed');
    },
  );
});

test('a failing secondary page is skipped', async (t) => {
  await withSite(
    {
      '/': html('<h1>x</h1><a href="/about">About</a><a href="/faq">FAQ</a>'),
      '/about': text('{}', 200, 'application/json'),
      '/faq': html('<h2>Why?</h2><p>Because.</p>'),
    },
    async (site) => {
      const result = await crawlSite(site.url, OPTIONS);
      t.deepEqual(
        result.pages.map((p) => p.url),
        [site.url, `${site.url}faq`],
      );
      t.deepEqual(extractDraft(result).fields.faqs, [{ question: 'Why?', answer: 'Because.' }]);
    },
  );
});

test('maxPages limits the pages fetched', async (t) => {
  await withSite(
    {
      '/': html('<a href="/contact">Contact</a><a href="/about">About</a><a href="/pricing">Pricing</a>'),
      '/about': html('<p>about</p>'),
      '/pricing': html('<p>pricing</p>'),
      '/contact': html('<p>contact</p>'),
    },
    async (site) => {
      const result = await crawlSite(site.url, { ...OPTIONS, maxPages: 2 });
      t.deepEqual(
        result.pages.map((p) => p.url),
        [site.url, `${site.url}about`],
      );
    },
  );
});

test('oversized page with Content-Length fails with too_large', async (t) => {
  const body = `<html><body>${'x'.repeat(300_000)}</body></html>`;
  await withSite({ '/': html(body, 200, { 'content-length': String(Buffer.byteLength(body)) }) }, async (site) => {
    const err = await crawlError(t, site.url);
    t.is(err.code, 'too_large');
    t.regex(err.message, /the limit is 195\.3 KB/);
    t.regex(err.message, /293\.0|293 KB/);
  });
});

test('oversized chunked page without Content-Length fails with too_large', async (t) => {
  await withSite(
    {
      '/': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = '<p>' + 'y'.repeat(50_000) + '</p>';
        let sent = 0;
        const send = () => {
          if (res.destroyed) return;
          if (sent++ >= 8) return void res.end();
          res.write(chunk, () => setImmediate(send));
        };
        send();
      },
    },
    async (site) => {
      const err = await crawlError(t, site.url);
      t.is(err.code, 'too_large');
      t.regex(err.message, /larger than 195\.3 KB/);
    },
  );
});

test('non-HTML pages fail with not_html', async (t) => {
  await withSite({ '/': text('{"a":1}', 200, 'application/json'), '/logo.png': text('PNG', 200, 'image/png') }, async (site) => {
    const json = await crawlError(t, site.url);
    t.is(json.code, 'not_html');
    t.regex(json.message, /application\/json/);
    const png = await crawlError(t, `${site.url}logo.png`);
    t.is(png.code, 'not_html');
    t.regex(png.message, /image\/png/);
  });
});

test('slow headers fail with timeout', async (t) => {
  await withSite(
    {
      '/': (req, res) => {
        const timer = setTimeout(() => html('<h1>late</h1>')(req, res), 3000);
        res.on('close', () => clearTimeout(timer));
      },
    },
    async (site) => {
      const started = Date.now();
      const err = await crawlError(t, site.url, { ...OPTIONS, timeoutMs: 500 });
      t.is(err.code, 'timeout');
      t.regex(err.message, /0\.5 seconds/);
      t.true(Date.now() - started < 2500);
    },
  );
});

test('a trickling body fails with timeout', async (t) => {
  await withSite(
    {
      '/': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const timer = setInterval(() => res.write('<p>drip</p>'), 100);
        res.on('close', () => clearInterval(timer));
      },
    },
    async (site) => {
      const err = await crawlError(t, site.url, { ...OPTIONS, timeoutMs: 500 });
      t.is(err.code, 'timeout');
    },
  );
});

test('HTTP errors on the home page fail with http_error naming the status', async (t) => {
  await withSite({ '/boom': html('<h1>boom</h1>', 500) }, async (site) => {
    const notFound = await crawlError(t, site.url);
    t.is(notFound.code, 'http_error');
    t.regex(notFound.message, /404/);
    const boom = await crawlError(t, `${site.url}boom`);
    t.is(boom.code, 'http_error');
    t.regex(boom.message, /500/);
  });
});

test('an unknown host fails with dns_failure', async (t) => {
  const err = await crawlError(t, 'http://no-such-host.invalid/');
  t.is(err.code, 'dns_failure');
  t.regex(err.message, /no-such-host\.invalid/);
});

test('a closed port fails with connection_failed', async (t) => {
  const port = await closedPort();
  const err = await crawlError(t, `http://127.0.0.1:${port}/`);
  t.is(err.code, 'connection_failed');
  t.regex(err.message, /refused/);
});

test('invalid and non-http URLs fail with invalid_url', async (t) => {
  t.is((await crawlError(t, 'not a url')).code, 'invalid_url');
  t.is((await crawlError(t, 'ftp://example.com/')).code, 'invalid_url');
});

test('the body is decoded with the declared charset', async (t) => {
  await withSite(
    {
      '/': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' });
        res.end(Buffer.from('<title>Café Crème</title><h1>Déjà vu</h1>', 'latin1'));
      },
    },
    async (site) => {
      const result = await crawlSite(site.url, OPTIONS);
      const { fields } = extractDraft(result);
      t.is(fields.name, 'Café Crème');
      t.is(fields.headline, 'Déjà vu');
    },
  );
});

test('robots.txt is checked on every redirect hop', async (t) => {
  await withSite(
    { '/robots.txt': text('User-agent: *\nDisallow: /private\n'), '/': redirect('/private/home'), '/private/home': html('<h1>x</h1>') },
    async (site) => {
      const err = await crawlError(t, site.url);
      t.is(err.code, 'robots_disallowed');
      t.regex(err.message, /\/private\/home/);
      t.false(site.requests.includes('/private/home'));
    },
  );
});

test('secondary pages stay within the company: another github.io site or loopback port is not followed', (t) => {
  const links = (hrefs: string[]) => `<html><body>${hrefs.map((h) => `<a href="${h}">About us</a>`).join(' ')}</body></html>`;
  t.deepEqual(
    pickSecondaryPages('https://acme.github.io/', links(['https://zeta.github.io/about', 'https://docs.acme.github.io/about']), null, 5),
    ['https://docs.acme.github.io/about'],
  );
  t.deepEqual(
    pickSecondaryPages('http://127.0.0.1:4001/', links(['http://127.0.0.1:4002/about', 'http://127.0.0.1:4001/about']), null, 5),
    ['http://127.0.0.1:4001/about'],
  );
});
