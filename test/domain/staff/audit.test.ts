import test from 'ava';
import { auditCsv, redact, type AuditView } from '../../../src/domain/staff/audit.ts';

test('redact drops the value of every secret-named field, at any depth, and keeps the rest', (t) => {
  const input = {
    number: 'LD-1',
    reason: 'asked by the buyer',
    password: 'hunter2',
    nested: { api_key: 'ld_x', token: 't', card: { number: '4242' }, cvc: '123', note: 'kept' },
    list: [{ secret: 's', webhook_secret: 'w', iban: 'DE00', authorization: 'Bearer x', fine: 1 }],
  };
  t.deepEqual(redact(input), {
    number: 'LD-1',
    reason: 'asked by the buyer',
    password: '[redacted]',
    nested: { api_key: '[redacted]', token: '[redacted]', card: '[redacted]', cvc: '[redacted]', note: 'kept' },
    list: [{ secret: '[redacted]', webhook_secret: '[redacted]', iban: '[redacted]', authorization: '[redacted]', fine: 1 }],
  });
});

test('the CSV export quotes what needs it and defuses formulas', (t) => {
  const row: AuditView = {
    id: '1',
    at: '2026-03-01T10:00:00.000Z',
    user_id: 2,
    user_email: 'a@example.com',
    role: 'support',
    factor: null,
    operation: 'staff_refund_order_line',
    input: { reason: 'said "no", twice' },
    target_kind: 'order',
    target_id: '=HYPERLINK("x")',
    before: null,
    after: { status: 'refunded' },
    request_id: 'r1',
  };
  const [, line] = auditCsv([row]).split('\r\n');
  t.is(
    line,
    `1,2026-03-01T10:00:00.000Z,2,a@example.com,support,,staff_refund_order_line,order,"'=HYPERLINK(""x"")",r1,` +
      `"{""reason"":""said \\""no\\"", twice""}",,"{""status"":""refunded""}"`,
  );
});
