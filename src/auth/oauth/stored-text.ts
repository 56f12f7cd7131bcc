import { errors } from 'oidc-provider';
import { ONE_LINE_PATTERN, unstorableText } from '../../domain/fields.ts';

/**
 * The parameters of an authorization request the provider always reads (its own list, plus
 * `resource` of resource indicators). Registered as `extraParams` validators, which the provider
 * runs on the assembled parameters before it stores anything (the interaction, a pushed request).
 */
const AUTHORIZATION_PARAMS = [
  'acr_values',
  'claims_locales',
  'client_id',
  'code_challenge',
  'code_challenge_method',
  'display',
  'id_token_hint',
  'login_hint',
  'max_age',
  'nonce',
  'prompt',
  'redirect_uri',
  'registration',
  'request',
  'request_uri',
  'resource',
  'response_mode',
  'response_type',
  'scope',
  'state',
  'ui_locales',
];

/**
 * `extraParams` validators refusing, with 400 invalid_request, a parameter holding a control
 * character or a lone surrogate: a NUL (`ui_locales=%00`) made the interaction's jsonb write fail
 * with an unauthenticated 500, and no parameter of the protocol is more than one line.
 */
export function authorizationParamChecks(): Record<string, (ctx: unknown, value: unknown) => void> {
  return Object.fromEntries(AUTHORIZATION_PARAMS.map((name) => [name, oneLineParam(name)]));
}

function oneLineParam(name: string) {
  return function checkOneLine(_ctx: unknown, value: unknown): void {
    for (const item of [value].flat()) {
      if (typeof item !== 'string') continue;
      if (!ONE_LINE_PATTERN.test(item) || !item.isWellFormed()) {
        throw new errors.InvalidRequest(`${name} must be one line of text without control characters`);
      }
    }
  };
}

/**
 * The last net before the adapter writes a payload (client metadata from open registration
 * included): the first string PostgreSQL cannot store, as a 400 of the provider instead of the
 * database's 500. Walked without recursion, whatever a client nested.
 */
export function assertStorablePayload(model: string, payload: unknown): void {
  const pending: unknown[] = [payload];
  while (pending.length) {
    const value = pending.pop();
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (!problem) continue;
      const detail = `a value is refused: ${problem.toLowerCase()}`;
      throw model === 'Client' ? new errors.InvalidClientMetadata(detail) : new errors.InvalidRequest(detail);
    }
    if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) pending.push(key, item);
    }
  }
}
