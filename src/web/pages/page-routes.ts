import type Router from '@koa/router';
import type { WebServices } from '../web-services.ts';

/** A module of pages: registers its routes on the web router. */
export type PageRoutes = (router: Router, services: WebServices) => void;
