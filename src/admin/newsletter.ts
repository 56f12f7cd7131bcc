import type { Db } from '../db/knex.ts';
import { markBounced } from '../domain/newsletter/subscribers.ts';
import { badRequest } from '../errors/errors.ts';

export const NEWSLETTER_USAGE = `  npm run admin -- newsletter:bounced --email E [--reason R]   (a bounce or complaint sent to NEWSLETTER_BOUNCE_ADDRESS: never mail the address a newsletter again)`;

/** Runs a `newsletter:*` command; returns null for other commands. Bad input throws an AppError (exit 1). */
export async function runNewsletterCommand(
  db: Db,
  command: string | undefined,
  flags: { email?: string; reason?: string },
): Promise<number | null> {
  if (command !== 'newsletter:bounced') return null;
  const email = flags.email?.trim();
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
    throw badRequest('usage', `--email must be the address that bounced.\n${NEWSLETTER_USAGE}`);
  }
  const fresh = await markBounced(db, email, flags.reason ?? 'bounced');
  console.log(
    fresh
      ? `${email.toLowerCase()} is marked bounced: no newsletter goes to it any more`
      : `${email.toLowerCase()} was marked bounced already`,
  );
  return 0;
}
