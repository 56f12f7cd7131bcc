import { load, type CheerioAPI } from 'cheerio';
import type { Db } from '../../src/db/knex.ts';

export interface WebResponse {
  status: number;
  headers: Headers;
  text: string;
  $: CheerioAPI;
  /** Location of a redirect, as sent. */
  location: string | null;
}

/**
 * A cookie-keeping HTTP client for the pages, without a browser: for what a browser would not
 * let a test do (forged or missing CSRF tokens, hostile fields, many fast attempts).
 */
export class WebClient {
  readonly baseUrl: string;
  readonly cookies = new Map<string, string>();
  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<WebResponse> {
    return this.request('GET', path, undefined, headers);
  }

  /** Posts a urlencoded form; repeated names from arrays. Adds nothing: the caller passes `_csrf`. */
  post(path: string, form: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<WebResponse> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) for (const v of [value].flat()) body.append(name, v);
    return this.request('POST', path, body, headers);
  }

  /** Posts multipart/form-data (a file upload form). */
  postMultipart(path: string, form: FormData): Promise<WebResponse> {
    return this.request('POST', path, form, {});
  }

  /** GETs a page and returns the CSRF token of its first form. */
  async csrfFrom(path: string): Promise<string> {
    const page = await this.get(path);
    const token = page.$('input[name=_csrf]').first().val();
    if (typeof token !== 'string') throw new Error(`no CSRF token on ${path} (status ${page.status})`);
    return token;
  }

  /** Signs in through the form; returns the response (303 on success). */
  async signIn(email: string, password: string, returnTo?: string): Promise<WebResponse> {
    const _csrf = await this.csrfFrom('/signin');
    return this.post('/signin', { _csrf, email, password, ...(returnTo ? { return_to: returnTo } : {}) });
  }

  private async request(method: string, path: string, body: URLSearchParams | FormData | undefined, headers: Record<string, string>) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      body,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...headers },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (value === '' || attrs.some((a) => /max-age=0/i.test(a.trim()))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, $: load(text), location: res.headers.get('location') };
  }
}

export interface OutboxMail {
  id: number;
  to_address: string;
  subject: string;
  body_text: string;
}

/** Mails queued to an address, oldest first. */
export async function mailsTo(db: Db, to: string): Promise<OutboxMail[]> {
  return db('mail_outbox').whereRaw('lower(to_address) = lower(?)', [to]).orderBy('id');
}

/** The first link in a mail to the given path (e.g. `/verify-email`). */
export function linkIn(mail: OutboxMail, path: string): string {
  const match = new RegExp(`https?://[^\\s]+${path.replace(/[/.]/g, '\\$&')}\\?token=[A-Za-z0-9_-]+`).exec(mail.body_text);
  if (!match) throw new Error(`no ${path} link in mail "${mail.subject}"`);
  return match[0];
}
