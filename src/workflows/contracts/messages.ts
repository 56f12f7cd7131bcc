/**
 * The signals and updates of our workflows, defined once: each workflow sets its handlers on
 * these and the client adapter (src/temporal/client.ts) sends these, so a name or a payload
 * cannot drift between the two. `define*` only builds a name with a type, so the client may
 * import this beside the workflows. Payloads are the domain's types, imported as types only.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { VerifyNowResult } from '../../domain/claims/claim-flow.ts';
import type { PaymentConfirmed } from '../../domain/orders/order-flow.ts';

// listing:{id}

/** Wakes the flow to look again at once (recheck_badge, a completed profile, an operator). */
export const recheckSignal = defineSignal('recheck');
/** A paid launch was booked (launchPaid): the listing's week or status changed. */
export const paidLaunchSignal = defineSignal<[{ week: string | null }]>('paidLaunch');

// order:{number}

/** A stored payment event to apply (deduplicated by its id). */
export const paymentConfirmedSignal = defineSignal<[PaymentConfirmed]>('paymentConfirmed');
/** Support's `orders:retry`: try the unfulfilled lines again. */
export const retryUpdate = defineUpdate<string>('retry');
/** ApplicationFailure type of a fulfilLine failure whose line cannot be delivered: the workflow refunds the line. */
export const UNDELIVERABLE = 'undeliverable';

// claim:{id}

/** verify_claim, "Check now", claims:recheck: check at once and answer with what was seen. */
export const verifyNowUpdate = defineUpdate<VerifyNowResult>('verifyNow');
/** The claimant opened the emailed link (the web page verified the claim): look at it now. */
export const emailLinkOpenedSignal = defineSignal('emailLinkOpened');
/** Another claim on the listing was verified and canceled this one. */
export const claimClosedSignal = defineSignal('claimClosed');
