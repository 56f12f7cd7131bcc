import { freeWeekPreview } from '../../domain/launches/free-week-preview.ts';
import type { OperationContext } from '../operation.ts';

/** The Monday a free launch on the request's site would get now (the launch panel shows it before the button). */
export function freeWeekNow(c: Pick<OperationContext, 'db' | 'site' | 'clock'>): Promise<string | null> {
  return freeWeekPreview(c.db, c.site.id, c.clock.now());
}
