import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY, type CallToolResult } from '@modelcontextprotocol/server';
import { MODERN_REVISIONS } from './revisions.ts';

/**
 * Pages only the person may see: the pay page of `create_checkout` and the
 * verification step of an email claim. When the MCP client declares URL elicitation
 * (`capabilities.elicitation.url`, protocol 2025-11-25 and later), the tool call also asks it to
 * show the page to its person (elicitation/create in URL mode), so the agent hands the page over
 * and never handles card data; the result still carries the URL for clients without it.
 */
export interface PersonPage {
  /** The input request's key (2026-07-28) and the words of the request. */
  key: string;
  url: string;
  message: string;
}

/** The page a successful result hands to the person, if any. */
export function personPage(tool: string, result: CallToolResult, baseUrl: string): PersonPage | null {
  const body = result.isError ? undefined : (result.structuredContent as Record<string, unknown> | undefined);
  if (!body) return null;
  if (tool === 'create_checkout' && typeof body.checkout_url === 'string') {
    return {
      key: 'pay_page',
      url: body.checkout_url,
      message: `Review and pay order ${String(body.number)} on the pay page. Your card details go to the payment page only, never to the assistant.`,
    };
  }
  if (tool === 'claim_listing' && body.method === 'email' && body.status === 'pending') {
    const sentTo = (body.instructions as { email?: { sent_to?: string } } | undefined)?.email?.sent_to;
    return {
      key: 'verify_claim',
      url: `${baseUrl}/account/claims#claim-${String(body.id)}`,
      message: `We sent a single-use link to ${sentTo ?? 'the company address'} to confirm that you may claim ${String(body.listing_name)}. Open that mail and follow the link; this page shows the claim and can send the link again.`,
    };
  }
  return null;
}

/** Tools whose results may hand a page to the person. */
export const HANDS_OVER_PAGES = new Set(['create_checkout', 'claim_listing']);

/**
 * A 2025-era client is served statelessly, so a tool call does not say what the client declared
 * in `initialize`. When it declared URL elicitation (2025-11-25 and later), the answer to
 * `initialize` carries an `Mcp-Session-Id` with this suffix, which the client sends back with
 * every request: the capability travels with the requests, no process keeps a session.
 */
const URL_ELICITATION_SUFFIX = '.url-elicitation';
/** The first revision with URL-mode elicitation. */
const URL_ELICITATION_SINCE = '2025-11-25';

/** The Mcp-Session-Id to answer a 2025-era `initialize` with, when its client declares URL elicitation. */
export function legacySessionFor(message: unknown): string | undefined {
  const m = message as { method?: unknown; params?: { protocolVersion?: unknown; capabilities?: { elicitation?: { url?: unknown } } } };
  if (m?.method !== 'initialize' || typeof m.params?.protocolVersion !== 'string') return undefined;
  if (m.params.protocolVersion < URL_ELICITATION_SINCE || !isObject(m.params.capabilities?.elicitation?.url)) return undefined;
  return `${randomUUID()}${URL_ELICITATION_SUFFIX}`;
}

/** Whether a 2025-era request comes from a client that declared URL elicitation (see legacySessionFor). */
export function legacyUrlElicitation(headers: IncomingHttpHeaders): boolean {
  const session = headers['mcp-session-id'];
  const version = headers['mcp-protocol-version'];
  return (
    typeof session === 'string' &&
    session.endsWith(URL_ELICITATION_SUFFIX) &&
    typeof version === 'string' &&
    version >= URL_ELICITATION_SINCE &&
    !MODERN_REVISIONS.includes(version)
  );
}

/** Whether a 2026-07-28 request's envelope declares URL elicitation. */
export function envelopeUrlElicitation(envelope: Record<string, unknown> | undefined): boolean {
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: { url?: unknown } } | undefined;
  return isObject(capabilities?.elicitation?.url);
}

/** Whether a tools/call message may need the SDK to hand a page over (the direct path cannot). */
export function mayHandOver(headers: IncomingHttpHeaders, name: string, message: unknown): boolean {
  if (!HANDS_OVER_PAGES.has(name)) return false;
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return envelopeUrlElicitation(meta) || legacyUrlElicitation(headers);
}

/** Whether a message calls one of those tools (only they need the sealed results of tools.ts). */
export function callsToolThatHandsOver(message: unknown): boolean {
  const m = message as { method?: unknown; params?: { name?: unknown } } | null;
  return m?.method === 'tools/call' && typeof m.params?.name === 'string' && HANDS_OVER_PAGES.has(m.params.name);
}

/** A new elicitation id of the 2025 URL mode. */
export const elicitationId = () => randomUUID();

const isObject = (value: unknown): value is object => value !== null && typeof value === 'object' && !Array.isArray(value);
