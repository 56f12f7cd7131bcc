import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { z } from 'zod';
import { STAFF_SCOPES, type Principal } from '../auth/scopes.ts';
import { siteByKey } from '../domain/sites/sites.ts';
import { badRequest } from '../errors/errors.ts';
import { operationContext } from '../operations/context.ts';
import { invoke } from '../operations/invoke.ts';
import type { Operation } from '../operations/operation.ts';
import { COMMAND_LINE_CREDENTIAL } from '../operations/staff.ts';

/**
 * The admin command line calls the site team's operations the console and the API call, so a
 * refund from the shell checks, ends and audits exactly what a refund from the console does. The
 * shell is break-glass: whoever has it has the database, so it acts with every staff scope, and
 * the audit log names it "command line" instead of a person.
 */
const SHELL: Principal = { userId: 0, credentialId: COMMAND_LINE_CREDENTIAL, scopes: STAFF_SCOPES };

export type ShellServices = Parameters<typeof operationContext>[0];

/** Runs `op` with `input` on the site `siteKey` (the default site when absent); returns its output. */
export async function runOperationFromShell<I extends z.ZodObject, O extends z.ZodType>(
  services: ShellServices,
  op: Operation<I, O>,
  input: z.input<I>,
  siteKey?: string,
): Promise<z.infer<O>> {
  const ctx = await operationContext(services, {
    log: pino({ level: 'silent' }),
    requestId: `cli-${randomUUID()}`,
    host: '',
    principal: SHELL,
  });
  // A site is picked by its key here, not by a Host header (the default site has none).
  if (siteKey !== undefined) ctx.site = await siteOf(services, siteKey);
  const { body } = await invoke(op as unknown as Operation, input, ctx, { challenge: '' });
  return body as z.infer<O>;
}

async function siteOf(services: ShellServices, key: string) {
  const site = await siteByKey(services.db, services.caches.sites, key);
  if (!site) throw badRequest('usage', `No site with the key "${key}".`);
  return site;
}
