import type { Context } from 'koa';
import { notFound } from '../../../errors/errors.ts';
import { staffGetCatalogueSettingsOp, staffSetCatalogueSettingsOp } from '../../../operations/staff-catalogue-settings.ts';
import { staffListProductsOp, staffSetProductActiveOp, staffSetProductPriceOp } from '../../../operations/staff-catalogue.ts';
import { staffCreatePromoCodeOp, staffDisablePromoCodeOp, staffListPromoCodesOp } from '../../../operations/staff-promo-codes.ts';
import { errorSummary, postForm } from '../../components.ts';
import { csrfToken } from '../../csrf.ts';
import { formBody, formString } from '../../forms.ts';
import { html } from '../../html.ts';
import { invokeForPage } from '../../invoke.ts';
import { refusal } from '../../owner-forms.ts';
import { renderPage } from '../../render.ts';
import { requireRecentFactor } from '../../staff-factor.ts';
import type { WebServices } from '../../web-services.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';
import {
  CATALOGUE_PATH,
  dollars,
  priceWords,
  productsSection,
  promosSection,
  SETTING_WORDS,
  settingsSection,
  type SettingName,
  type Shown,
} from './catalogue-view.ts';
import { centsOf, promoInput, settingChanges, type Changes } from './catalogue-forms.ts';

const KEY = /^[a-z_]{1,40}$/;

/** What a finished action says at the top of the page (`?done=`). */
const DONE: Record<string, string> = {
  price: 'The new price is set.',
  active: 'The product is changed.',
  promo: 'The promo code is created.',
  disabled: 'The promo code is disabled.',
  settings: 'The settings are changed.',
};

/**
 * The catalogue for a site's admin. Price, paid-slot and seller changes move money: they want a
 * second factor from the last 10 minutes and a page saying what changes before the change is made.
 */
export const staffCataloguePages: PageRoutes = (router, services) => {
  const money = [requireStaff(services, ['admin']), requireRecentFactor(services)];

  router.get(CATALOGUE_PATH, requireStaff(services, ['admin']), async function catalogue(ctx) {
    await cataloguePage(ctx, services);
  });

  router.post(`${CATALOGUE_PATH}/products/{product}/price`, ...money, async function setPrice(ctx) {
    const key = productKey(ctx);
    const typed = formString(formBody(ctx), 'price').trim();
    const cents = centsOf(typed);
    if (cents === null) {
      const errors = { [`price-${key}`]: 'Give the price in dollars, such as 99 or 99.50 (at most 1000000).' };
      return cataloguePage(ctx, services, { status: 400, errors, values: { [`price-${key}`]: typed } });
    }
    if (formString(formBody(ctx), 'confirm') !== 'yes') return confirmPrice(ctx, services, key, cents);
    await invokeForPage(ctx, services, staffSetProductPriceOp, { product: key, price_cents: cents });
    done(ctx, 'price');
  });

  router.post(`${CATALOGUE_PATH}/products/{product}/active`, ...money, async function setActive(ctx) {
    const active = formString(formBody(ctx), 'active') === 'true';
    await invokeForPage(ctx, services, staffSetProductActiveOp, { product: productKey(ctx), active });
    done(ctx, 'active');
  });

  router.post(`${CATALOGUE_PATH}/promo-codes`, requireStaff(services, ['admin']), async function createPromo(ctx) {
    const form = promoInput(formBody(ctx));
    if (!form.ok) return cataloguePage(ctx, services, { status: 400, errors: form.errors, values: form.values });
    try {
      await invokeForPage(ctx, services, staffCreatePromoCodeOp, form.input);
    } catch (err) {
      return cataloguePage(ctx, services, { ...refusal(err), values: form.values });
    }
    done(ctx, 'promo');
  });

  router.post(`${CATALOGUE_PATH}/promo-codes/{code}/disable`, requireStaff(services, ['admin']), async function disablePromo(ctx) {
    await invokeForPage(ctx, services, staffDisablePromoCodeOp, { code: String(ctx.params.code ?? '').slice(0, 100) });
    done(ctx, 'disabled');
  });

  router.post(`${CATALOGUE_PATH}/settings`, ...money, async function setSettings(ctx) {
    const body = formBody(ctx);
    const current = await invokeForPage(ctx, services, staffGetCatalogueSettingsOp, {});
    const form = settingChanges(body, current);
    if (!form.ok) return cataloguePage(ctx, services, { status: 400, errors: form.errors, values: form.values });
    if (formString(body, 'confirm') !== 'yes') return confirmSettings(ctx, services, form.changes, current);
    try {
      await invokeForPage(ctx, services, staffSetCatalogueSettingsOp, form.changes);
    } catch (err) {
      return cataloguePage(ctx, services, { ...refusal(err), values: form.values });
    }
    done(ctx, 'settings');
  });
};

function productKey(ctx: Context): string {
  const key = ctx.params.product ?? '';
  if (!KEY.test(key)) throw notFound('The product');
  return key;
}

function done(ctx: Context, what: keyof typeof DONE) {
  ctx.status = 303;
  ctx.redirect(`${CATALOGUE_PATH}?done=${what}`);
}

async function cataloguePage(ctx: Context, services: WebServices, shown: Shown = {}) {
  const [products, promos, settings] = await Promise.all([
    invokeForPage(ctx, services, staffListProductsOp, {}),
    invokeForPage(ctx, services, staffListPromoCodesOp, {}),
    invokeForPage(ctx, services, staffGetCatalogueSettingsOp, {}),
  ]);
  const token = await csrfToken(ctx, services);
  const doneWord = typeof ctx.query.done === 'string' ? DONE[ctx.query.done] : undefined;
  await renderPage(ctx, services, {
    title: 'Catalogue',
    status: shown.status,
    notice: shown.errors ? undefined : doneWord,
    main: html`<p><a href="/staff">Site team</a></p>
${errorSummary(shown.errors)}
${productsSection(products.items, token, shown)}
${promosSection(promos.items, products.items, token, shown)}
${settingsSection(settings, token, shown)}`,
  });
}

async function confirmPrice(ctx: Context, services: WebServices, key: string, cents: number) {
  const product = (await invokeForPage(ctx, services, staffListProductsOp, {})).items.find((p) => p.key === key);
  if (!product) throw notFound(`Product "${key}"`);
  await renderPage(ctx, services, {
    title: `Change the price of ${product.name}?`,
    main: html`<p data-change>From <strong>${priceWords(product, product.price_cents)}</strong> to <strong>${priceWords(product, cents)}</strong>, before VAT.</p>
<p>Every quote and checkout from now on uses the new price; orders already made keep theirs.</p>
${postForm(
  `${CATALOGUE_PATH}/products/${key}/price`,
  await csrfToken(ctx, services),
  html`<input type="hidden" name="price" value="${dollars(cents)}"><input type="hidden" name="confirm" value="yes"><button type="submit">Set the new price</button> <a href="${CATALOGUE_PATH}">Cancel</a>`,
)}`,
  });
}

type Settings = Awaited<
  ReturnType<typeof invokeForPage<typeof staffGetCatalogueSettingsOp.input, typeof staffGetCatalogueSettingsOp.output>>
>;

async function confirmSettings(ctx: Context, services: WebServices, changes: Changes, s: Settings) {
  const shown = (v: unknown) => (v === null || v === '' || v === undefined ? '(none)' : String(v));
  const entries = Object.entries(changes) as [SettingName, string | number][];
  await renderPage(ctx, services, {
    title: 'Change these settings?',
    main: html`<ul data-change>${entries.map(([name, v]) => html`<li>${SETTING_WORDS[name]}: from <strong>${shown(s[name])}</strong> to <strong>${shown(v)}</strong></li>`)}</ul>
<p>Paid launches already sold stay; invoices already issued keep the seller they named.</p>
${postForm(
  `${CATALOGUE_PATH}/settings`,
  await csrfToken(ctx, services),
  html`${entries.map(([name, v]) => html`<input type="hidden" name="${name}" value="${String(v)}">`)}<input type="hidden" name="confirm" value="yes"><button type="submit">Change them</button> <a href="${CATALOGUE_PATH}">Cancel</a>`,
)}`,
  });
}
