import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeStripeRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  form: URLSearchParams;
}

interface Intent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
  payment_method_types: string[];
}

/**
 * A loopback stand-in for the parts of the Stripe API the adapter calls (PaymentIntents create
 * and search, refunds), answering with Stripe's object shapes and replaying idempotent requests
 * the way Stripe does. Every request is recorded so tests check what the SDK sent.
 */
export async function startFakeStripe(secretKey: string) {
  const requests: FakeStripeRequest[] = [];
  const intents = new Map<string, Intent>();
  const replays = new Map<string, string>();
  /** How refunds of an intent are answered instead of succeeding: an HTTP status and Stripe's error object. */
  const refundFailures = new Map<string, { status: number; error: { type: string; code?: string; message: string } }>();
  let next = 1;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const form = new URLSearchParams(req.method === 'GET' ? url.search : Buffer.concat(chunks).toString());
      const entry: FakeStripeRequest = {
        method: req.method ?? '',
        path: url.pathname,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        authorization: req.headers.authorization,
        form,
      };
      requests.push(entry);
      const send = (status: number, body: unknown) => {
        const text = JSON.stringify(body);
        if (entry.idempotencyKey && status === 200) replays.set(entry.idempotencyKey, text);
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${next++}` });
        res.end(text);
      };
      if (entry.authorization !== `Bearer ${secretKey}`)
        return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key' } });
      const replay = entry.idempotencyKey && replays.get(entry.idempotencyKey);
      if (replay) {
        res.writeHead(200, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
        return res.end(replay);
      }
      if (entry.method === 'POST' && entry.path === '/v1/payment_intents') {
        const id = `pi_fake_${next++}`;
        const metadata: Record<string, string> = {};
        for (const [k, v] of form) if (k.startsWith('metadata[')) metadata[k.slice(9, -1)] = v;
        const intent: Intent = {
          id,
          object: 'payment_intent',
          amount: Number(form.get('amount')),
          amount_received: 0,
          currency: form.get('currency') ?? '',
          status: 'requires_payment_method',
          client_secret: `${id}_secret_fake`,
          metadata,
          payment_method_types: ['card', 'paypal', 'link', 'crypto'],
        };
        intents.set(id, intent);
        return send(200, intent);
      }
      if (entry.method === 'GET' && entry.path === '/v1/payment_intents/search') {
        const query = form.get('query') ?? '';
        const number = /metadata\['order_number'\]:'([^']+)'/.exec(query)?.[1];
        const data = [...intents.values()].filter(
          (i) => i.metadata.order_number === number && (!query.includes("status:'succeeded'") || i.status === 'succeeded'),
        );
        return send(200, { object: 'search_result', data, has_more: false, url: '/v1/payment_intents/search' });
      }
      if (entry.method === 'POST' && entry.path === '/v1/refunds') {
        const intent = intents.get(form.get('payment_intent') ?? '');
        const failure = refundFailures.get(form.get('payment_intent') ?? '');
        if (failure) return send(failure.status, { error: failure.error });
        return send(200, {
          id: `re_fake_${next++}`,
          object: 'refund',
          amount: Number(form.get('amount')),
          payment_intent: intent?.id ?? form.get('payment_intent'),
          status: 'succeeded',
        });
      }
      send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${entry.method}: ${entry.path})` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    intents,
    refundFailures,
    /** The payer completed the payment on Stripe's side. */
    succeed(id: string) {
      const intent = intents.get(id)!;
      Object.assign(intent, { status: 'succeeded', amount_received: intent.amount });
      return intent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
