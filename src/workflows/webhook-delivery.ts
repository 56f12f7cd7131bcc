import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks.ts';
import type { WebhookDeliveryInput } from '../domain/webhooks/events.ts';

// One POST takes 10 s at most; the rest is the database around it. The try heartbeats every
// second while it waits: a worker lost mid-try is noticed at the heartbeat timeout, and the try is
// made again (same webhook-id).
const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** The waits between tries: firstMs, then 3 times longer each time, at most maxMs. */
export function retryDelay(input: Pick<WebhookDeliveryInput, 'firstRetryMs' | 'maxRetryMs'>, failures: number): number {
  return Math.min(input.firstRetryMs * 3 ** (failures - 1), input.maxRetryMs);
}

/**
 * `webhook-delivery:{id}`: delivers one event to one endpoint. Tries at once, then after waits
 * growing from seconds to hours, until `windowMs` after the first try; each try is recorded by the
 * activity, which also disables an endpoint that failed for the whole window. Ends when the
 * endpoint answers 2xx, is deleted or turned off, or a redelivery took over (a newer round).
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<{ outcome: string; tries: number }> {
  const started = Date.now();
  for (let tries = 1; ; tries++) {
    const wait = retryDelay(input, tries);
    const retryInMs = Date.now() + wait - started <= input.windowMs ? wait : null;
    const outcome = await attemptWebhookDelivery({ deliveryId: input.deliveryId, round: input.round, retryInMs });
    if (outcome !== 'retry') return { outcome, tries };
    await sleep(wait);
  }
}
