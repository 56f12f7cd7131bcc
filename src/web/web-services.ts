import type { Services } from '../services.ts';

/** What web pages and their helpers use of the process services. */
export type WebServices = Pick<
  Services,
  | 'db'
  | 'config'
  | 'log'
  | 'workflows'
  | 'workflowStarts'
  | 'search'
  | 'payments'
  | 'caches'
  | 'secrets'
  | 'badgeAgent'
  | 'pageCounters'
  | 'media'
  | 'clock'
>;

/** Cookies get the Secure flag when the public origin is https. */
export const secureCookies = (services: WebServices) => services.config.baseUrl.startsWith('https:');
