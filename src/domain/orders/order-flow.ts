/** The order workflow `order:{number}`: its input and the payload of its payment signal (types only: the workflow imports this). */

export interface OrderWorkflowInput {
  number: string;
  /** When the checkout link stops being payable (ISO instant); the workflow's expiry timer. */
  expiresAt: string;
  /** Tries of one fulfilment step before the order needs support. */
  fulfilMaxAttempts: number;
  /**
   * Retries of the payment steps (applying an event, a refund); after the last the order needs
   * support. Absent in runs started before it existed: the workflow's defaults apply.
   */
  stepRetry?: { initialIntervalMs: number; maximumAttempts: number };
}

/** Signal `paymentConfirmed`: a stored payment event (deduplicated by `eventId`). */
export interface PaymentConfirmed {
  eventId: number;
}
