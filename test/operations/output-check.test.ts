import test from 'ava';
import pino from 'pino';
import { z } from 'zod';
import { AppError } from '../../src/errors.ts';
import { invoke } from '../../src/operations/invoke.ts';
import { defineOperation, type Operation, type OperationContext } from '../../src/operations/operation.ts';

const op = defineOperation({
  name: 'echo_count',
  summary: 'test operation',
  method: 'GET',
  path: '/echo',
  idempotent: false,
  readOnly: true,
  tags: [],
  input: z.object({ count: z.int() }),
  output: z.object({ count: z.int().min(0) }),
  handler: async (input) => ({ count: input.count }),
}) as unknown as Operation;

const context = (checkOutputs: boolean) =>
  ({ config: { checkOutputs }, log: pino({ level: 'silent' }), principal: null }) as unknown as OperationContext;

test('with CHECK_OUTPUTS a result that breaks the output schema fails the call, naming the field', async (t) => {
  const ok = await invoke(op, { count: 3 }, context(true), { challenge: 'Bearer' });
  t.deepEqual(ok.body, { count: 3 });
  const err = await t.throwsAsync(invoke(op, { count: -1 }, context(true), { challenge: 'Bearer' }));
  t.true(err instanceof AppError);
  t.is((err as AppError).status, 500);
  t.is((err as AppError).code, 'output_invalid');
  t.regex(err!.message, /^echo_count returned output that breaks its schema: count: /);
});

test('without CHECK_OUTPUTS (production) the result is sent as the handler gave it', async (t) => {
  const res = await invoke(op, { count: -1 }, context(false), { challenge: 'Bearer' });
  t.deepEqual(res.body, { count: -1 });
});
