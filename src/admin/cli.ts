import { systemClock } from '../domain/time/clock.ts';
import { parseArgs } from 'node:util';
import { createApiKey } from '../auth/api-keys.ts';
import { ScopeSchema, type Scope } from '../auth/scopes.ts';
import { createVerifiedUser } from '../auth/accounts.ts';
import { PasswordSchema } from '../auth/passwords.ts';
import { createUser, userByEmail } from '../auth/users.ts';
import type { Db } from '../db/knex.ts';
import { AppError } from '../errors/errors.ts';
import { CLAIMS_USAGE, claimsList, claimsRecheck } from './claims.ts';
import { EDITS_LIST_USAGE, editsList } from './edits-list.ts';
import { FLOWS_USAGE, runFlowsCommand } from './flows.ts';
import { LAUNCH_OPTIONS, LAUNCHES_USAGE, runLaunchCommand } from './launches.ts';
import { LISTINGS_IMPORT_USAGE, listingsImport } from './listings-import.ts';
import { NEWSLETTER_USAGE, runNewsletterCommand } from './newsletter.ts';
import { ORDER_SUPPORT_USAGE, runOrderSupportCommand } from './order-support.ts';
import type { Services } from '../services.ts';
import { ORDER_OPTIONS, ORDERS_USAGE, OrderUsageError, runOrderCommand } from './orders.ts';
import { QUESTION_OPTIONS, QUESTIONS_USAGE, QuestionUsageError, runQuestionCommand } from './questions.ts';
import { SEARCH_USAGE, searchReindex } from './search.ts';
import { SITE_OPTIONS, SITES_USAGE, runSiteCommand } from './sites.ts';
import { resetFactorCommand, STAFF_OPTIONS, STAFF_USAGE, runStaffCommand } from './staff.ts';
import { VOTE_OPTIONS, VOTES_USAGE, runVoteCommand } from './votes.ts';

const USAGE = `Usage:
  npm run admin -- users:create --email E [--password P]
  npm run admin -- keys:create --email E --scopes account:read,listings:write,orders:write,webhooks:write [--name N]
  ${EDITS_LIST_USAGE}
${QUESTIONS_USAGE}
  ${LISTINGS_IMPORT_USAGE}
${SITES_USAGE}
${LAUNCHES_USAGE}
${VOTES_USAGE}
${CLAIMS_USAGE}
${ORDERS_USAGE}
${ORDER_SUPPORT_USAGE}
${FLOWS_USAGE}
${STAFF_USAGE}
${NEWSLETTER_USAGE}
${SEARCH_USAGE}`;

/** Runs one admin command; returns the process exit code. Output is for scripts: the key alone on the last line. */
export async function runAdmin(db: Db, argv: string[], services?: Services): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      limit: { type: 'string' },
      url: { type: 'string' },
      status: { type: 'string' },
      stuck: { type: 'boolean' },
      ...QUESTION_OPTIONS,
      ...SITE_OPTIONS,
      ...LAUNCH_OPTIONS,
      ...VOTE_OPTIONS,
      ...ORDER_OPTIONS,
      ...STAFF_OPTIONS,
    },
    strict: true,
  });
  try {
    const questions = await runQuestionCommand(db, command, values);
    if (questions !== null) return questions;
    const sites = await runSiteCommand(db, command, values);
    if (sites !== null) return sites;
    const newsletter = await runNewsletterCommand(db, command, values);
    if (newsletter !== null) return newsletter;
    const staff = services ? await runStaffCommand(services, command, values) : null;
    if (staff !== null) return staff;
    if (services) {
      const launches = await runLaunchCommand(
        {
          db,
          config: services.config,
          workflows: services.workflows,
          badgeAgent: services.badgeAgent,
          clock: services.clock ?? systemClock,
        },
        command,
        values,
      );
      if (launches !== null) return launches;
      const flows = await runFlowsCommand(db, services, command);
      if (flows !== null) return flows;
    }
    const votes = await runVoteCommand(db, command, values, services);
    if (votes !== null) return votes;
    const orders = await runOrderCommand(db, services, command, values);
    if (orders !== null) return orders;
    const supportCode = await runOrderSupportCommand(db, services, command, values);
    if (supportCode !== null) return supportCode;
    switch (command) {
      case 'users:create': {
        const email = required(values.email, '--email');
        // With a password the account is verified and can sign in on the web at once.
        const user =
          values.password === undefined ? await createUser(db, email) : await createVerifiedUser(db, email, password(values.password));
        console.log(`created user ${user.id} <${user.email}>`);
        return 0;
      }
      case 'keys:create': {
        const user = await userByEmail(db, required(values.email, '--email'));
        const scopes = parseScopes(required(values.scopes, '--scopes'));
        const { key, view } = await createApiKey(db, user.id, values.name ?? 'admin CLI', scopes);
        console.log(`created key ${view.id} "${view.name}" for ${user.email} with scopes ${scopes.join(',')}`);
        console.log(key);
        return 0;
      }
      case 'edits:list':
        console.log(await editsList(db, values));
        return 0;
      case 'listings:import':
        console.log(await listingsImport(db, withServices(services).workflows, values));
        return 0;
      case 'claims:list':
        console.log(await claimsList(db, values));
        return 0;
      case 'claims:recheck':
        console.log(await claimsRecheck(db, withServices(services), values));
        return 0;
      case 'search:reindex':
        console.log(await searchReindex(withServices(services)));
        return 0;
      case 'staff:reset-factor':
        return await resetFactorCommand(withServices(services), values);
      default:
        console.error(command ? `Unknown command "${command}".\n${USAGE}` : USAGE);
        return 2;
    }
  } catch (err) {
    if (err instanceof AppError || err instanceof UsageError || err instanceof QuestionUsageError || err instanceof OrderUsageError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}

class UsageError extends Error {}

function withServices<T>(services: T | undefined): T {
  if (!services) throw new Error('this admin command needs the configuration and Temporal (run it through main.ts)');
  return services;
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required.\n${USAGE}`);
  return value;
}

function password(value: string): string {
  const parsed = PasswordSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`--password: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

function parseScopes(list: string): Scope[] {
  const scopes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = scopes.filter((s) => !ScopeSchema.safeParse(s).success);
  if (bad.length || scopes.length === 0) {
    throw new UsageError(`Unknown scope(s): ${bad.join(', ') || '(none given)'}. Known: ${ScopeSchema.options.join(', ')}`);
  }
  return [...new Set(scopes)] as Scope[];
}
