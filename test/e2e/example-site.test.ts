import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { serveExampleSite, type TestSite } from '../helpers/site.ts';
import { eventually } from '../helpers/eventually.ts';

// The README's offline "Try it": the example company site, drafted through the real workflow.

let env: TestEnv;
let site: TestSite;

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
  site = await serveExampleSite();
});
test.after.always(async () => {
  await site?.close();
  await env?.close();
});

async function waitForDraft(key: string, id: number) {
  return eventually(
    `draft ${id} to finish`,
    async () => {
      const res = await api(env, 'GET', `/drafts/${id}`, { key });
      return !['crawling', 'drafting'].includes(res.body.status) && res.body;
    },
    { timeoutMs: 60_000 },
  );
}

test('the example site drafts into a complete listing', async (t) => {
  const owner = await env.user();
  const created = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: site.url } });
  t.is(created.status, 201, JSON.stringify(created.body));
  const draft = await waitForDraft(owner.key, created.body.id);
  t.is(draft.status, 'ready', JSON.stringify(draft.failure));
  t.deepEqual(site.requests.slice(0, 5), ['/robots.txt', '/', '/about', '/pricing', '/faq']);
  t.deepEqual(draft.fields, {
    name: 'Quillstone',
    headline: 'Invoicing for small studios',
    summary:
      'Quillstone sends invoices, chases late payments and keeps the books for design studios and freelancers, so they can get back to the work they love.',
    logo_url: draft.fields.logo_url,
    image_url: draft.fields.image_url,
    facts: {
      legal_name: 'Quillstone Software Ltd',
      founded_year: 2021,
      founders: ['Ada Byrne', 'Tomas Okafor'],
      location: 'Dublin, IE',
      employees: '14',
      email: 'hello@quillstone.example',
    },
    socials: {
      github: 'https://github.com/quillstone',
      linkedin: 'https://www.linkedin.com/company/quillstone',
      twitter: 'https://x.com/quillstoneapp',
    },
    faqs: [
      { question: 'Can my clients pay by card?', answer: 'Yes. Every invoice has a pay button for cards and bank transfers.' },
      { question: 'Is there a free trial?', answer: 'Yes, every plan starts with 30 days free, no card needed.' },
      {
        question: 'Can my accountant see my books?',
        answer: 'Yes. On the Studio plan you can invite your accountant with a read-only login.',
      },
    ],
    categories: ['finance'],
    contact_email: 'hello@quillstone.example',
  });
  // The logo and cover image were fetched from the site and are served from /media.
  t.regex(draft.fields.logo_url, new RegExp(`^${env.baseUrl}/media/logos/[0-9a-f]{32}/256\\.png$`));
  t.regex(draft.fields.image_url, new RegExp(`^${env.baseUrl}/media/images/[0-9a-f]{32}\\.jpg$`));
  t.true(draft.evidence.logo_url.snippet.includes('/assets/logo.png'));
  // Every drafted field says which page it came from.
  t.is(draft.evidence.name.source_url, site.url);
  t.is(draft.evidence.faqs.source_url, `${site.url}faq`);

  const submitted = await api(env, 'POST', `/drafts/${draft.id}/submit`, { key: owner.key });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  const listing = await api(env, 'GET', `/me/listings/${submitted.body.listing_id}`, { key: owner.key });
  t.like(listing.body, { status: 'draft', name: 'Quillstone', headline: 'Invoicing for small studios' });
  const mine = await api(env, 'GET', '/drafts', { key: owner.key });
  t.like(mine.body.items[0], { id: draft.id, status: 'submitted', name: 'Quillstone', listing_id: submitted.body.listing_id });
});

test('the example site answers 404 for anything it does not have, paths outside it included', async (t) => {
  const site = await serveExampleSite(); // its own, so the request log of the draft test stays exact
  t.teardown(() => site.close());
  for (const path of ['/nope', '/../server.ts', '/%2e%2e/server.ts', '/public/index.html', '/about.htm']) {
    const res = await fetch(`${site.url.slice(0, -1)}${path}`);
    t.is(res.status, 404, path);
  }
  const about = await fetch(`${site.url}about`);
  t.is(about.headers.get('content-type'), 'text/html; charset=utf-8');
  t.regex(await about.text(), /founded in 2021/);
});
