import { openStopLink, type StopLink } from '../../domain/mail-preferences/links.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the unsubscribe page shows before anyone presses its button: what the link stops and
 * whether that is stopped already. Reads only: a GET never unsubscribes (link scanners follow
 * GETs). Null for a forged or altered link.
 */
export function unsubscribeLink(c: Pick<OperationContext, 'db'>, token: string): Promise<StopLink | null> {
  return openStopLink(c.db, token);
}
