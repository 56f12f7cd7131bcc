import test from 'ava';
import pino from 'pino';
import { z } from 'zod';
import { AppError, appError } from '../../src/errors/errors.ts';
import { operationErrorCodes } from '../../src/operations/error-codes.ts';
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

/** Throws the code it is given: `sold_out` it declares, anything else it does not. */
const thrower = defineOperation({
  name: 'throw_code',
  summary: 'test operation',
  method: 'GET',
  path: '/throw',
  idempotent: false,
  readOnly: true,
  errorCodes: ['sold_out'],
  tags: [],
  input: z.object({ code: z.enum(['sold_out', 'claim_not_pending', 'not_found']) }),
  output: z.object({}),
  handler: async (input) => {
    throw appError(input.code, 'thrown');
  },
}) as unknown as Operation;

test('with CHECK_OUTPUTS an error code the operation does not declare fails the call; a declared one passes', async (t) => {
  const declared = await t.throwsAsync(invoke(thrower, { code: 'sold_out' }, context(true), { challenge: 'Bearer' }));
  t.is((declared as AppError).code, 'sold_out');
  const undeclared = await t.throwsAsync(invoke(thrower, { code: 'claim_not_pending' }, context(true), { challenge: 'Bearer' }));
  t.is((undeclared as AppError).code, 'output_invalid');
  t.is(undeclared!.message, 'throw_code returned the error code claim_not_pending, which it does not declare (errorCodes).');
  // not_found is implied by a path id only; /throw has none.
  const implied = await t.throwsAsync(invoke(thrower, { code: 'not_found' }, context(true), { challenge: 'Bearer' }));
  t.is((implied as AppError).code, 'output_invalid');
  const production = await t.throwsAsync(invoke(thrower, { code: 'claim_not_pending' }, context(false), { challenge: 'Bearer' }));
  t.is((production as AppError).code, 'claim_not_pending');
});

test('operationErrorCodes adds what the flags imply, in catalogue order', (t) => {
  t.deepEqual(operationErrorCodes(thrower), ['validation_failed', 'sold_out', 'internal_error', 'database_unavailable']);
});
