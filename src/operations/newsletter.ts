import { z } from 'zod';
import {
  confirmSubscription,
  readAccountSubscription,
  setAccountSubscription,
  subscribeByEmail,
  SUBSCRIBE_ANSWER,
  unsubscribeByLink,
  type SubscribeContext,
} from '../domain/newsletter/subscribers.ts';
import { RateLimitedError, takePoints } from '../domain/quotas/rate-limit.ts';
import { siteByKey, type Site } from '../domain/sites/sites.ts';
import { badRequest, tooManyRequests } from '../errors/errors.ts';
import { callerId, defineOperation, type OperationContext } from './operation.ts';
import { Id } from './schemas.ts';

const SiteKey = z.string().min(1).max(60).optional().describe('Site key (see list_sites); default: the site of this host');
const Email = z.email('Enter an email address like name@example.com.').max(254, 'An email address has at most 254 characters.');

async function siteOf(ctx: OperationContext, key: string | undefined): Promise<Site> {
  const site = key === undefined ? ctx.site : await siteByKey(ctx.db, ctx.caches.sites, key);
  if (!site) throw badRequest('unknown_site', `There is no site with the key "${key}"; see list_sites.`);
  return site;
}

function subscribeContext(ctx: OperationContext, site: Site): SubscribeContext {
  const { confirmResendMinutes, confirmHours } = ctx.config.newsletter;
  return { site, baseUrl: ctx.config.baseUrl, now: ctx.clock.now(), confirmResendMinutes, confirmHours };
}

export const subscribeNewsletterOp = defineOperation({
  name: 'subscribe_newsletter',
  summary: "Subscribe an email address to a site's weekly newsletter",
  description:
    'Double opt-in: we mail a confirmation link, and send nothing else until it is used. The answer is the same whether the address is new, waiting or subscribed already; a second request for an unconfirmed address re-sends the link at most once per NEWSLETTER_CONFIRM_RESEND_MINUTES.',
  method: 'POST',
  path: '/newsletter/subscribe',
  idempotent: false,
  readOnly: false,
  successStatus: 202,
  tags: ['newsletter'],
  errorCodes: ['unknown_site', 'rate_limited'],
  input: z.object({ email: Email, site: SiteKey }),
  output: z.object({ message: z.string() }),
  async handler(input, ctx) {
    const site = await siteOf(ctx, input.site);
    const limit = { name: 'newsletter-subscribe', points: ctx.config.newsletter.subscribesPerIpPerHour, seconds: 3600 };
    try {
      await takePoints(ctx.db, [{ limit, key: ctx.clientIp }]);
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err;
      throw tooManyRequests('Too many subscribe requests from this address. Wait a while, then try again.', err.retryAfterSeconds);
    }
    await subscribeByEmail(ctx.db, input.email, subscribeContext(ctx, site));
    return { message: SUBSCRIBE_ANSWER };
  },
});

export const confirmNewsletterOp = defineOperation({
  name: 'confirm_newsletter',
  summary: 'Confirm a newsletter subscription with the token of its mailed link',
  description: 'The token is the last part of the confirmation link. It works once, for NEWSLETTER_CONFIRM_HOURS.',
  method: 'POST',
  path: '/newsletter/confirm',
  idempotent: false,
  readOnly: false,
  tags: ['newsletter'],
  errorCodes: ['newsletter_link_invalid', 'newsletter_link_expired'],
  input: z.object({ token: z.string().max(200) }),
  output: z.object({ email: z.string(), site_id: Id }),
  handler: (input, ctx) => confirmSubscription(ctx.db, input.token, ctx.clock.now()),
});

export const unsubscribeNewsletterOp = defineOperation({
  name: 'unsubscribe_newsletter',
  summary: 'Unsubscribe from the newsletter with the token of its unsubscribe link',
  description:
    'The token is the last part of the link at the end of every issue (and in its List-Unsubscribe header). Using it again changes nothing.',
  method: 'POST',
  path: '/newsletter/unsubscribe',
  idempotent: false,
  readOnly: false,
  tags: ['newsletter'],
  errorCodes: ['newsletter_link_invalid'],
  input: z.object({ token: z.string().max(200) }),
  output: z.object({ email: z.string(), site_id: Id, subscribed: z.boolean() }),
  handler: (input, ctx) => unsubscribeByLink(ctx.db, input.token, ctx.clock.now()),
});

const AccountSubscription = z.object({
  status: z.enum(['none', 'pending', 'subscribed']).describe('pending: waits for the link mailed to an account email not confirmed yet'),
  email: z.string(),
});

export const getNewsletterSubscriptionOp = defineOperation({
  name: 'get_newsletter_subscription',
  summary: "Whether you get a site's weekly newsletter",
  method: 'GET',
  path: '/me/newsletter',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['newsletter'],
  errorCodes: ['unknown_site'],
  input: z.object({ site: SiteKey }),
  output: AccountSubscription,
  handler: async (input, ctx) => readAccountSubscription(ctx.db, (await siteOf(ctx, input.site)).id, callerId(ctx)),
});

export const setNewsletterSubscriptionOp = defineOperation({
  name: 'set_newsletter_subscription',
  summary: "Subscribe to or unsubscribe from a site's weekly newsletter",
  description: 'At your account email: a confirmed one counts as confirmed; otherwise we mail a confirmation link first.',
  method: 'PUT',
  path: '/me/newsletter',
  scope: 'listings:write',
  idempotent: true,
  readOnly: false,
  tags: ['newsletter'],
  errorCodes: ['unknown_site'],
  input: z.object({ subscribed: z.boolean(), site: SiteKey }),
  output: AccountSubscription,
  handler: async (input, ctx) =>
    setAccountSubscription(ctx.db, callerId(ctx), input.subscribed, subscribeContext(ctx, await siteOf(ctx, input.site))),
});

export const newsletterOperations = [
  subscribeNewsletterOp,
  confirmNewsletterOp,
  unsubscribeNewsletterOp,
  getNewsletterSubscriptionOp,
  setNewsletterSubscriptionOp,
];
