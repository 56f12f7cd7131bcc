import type { RouteScope } from '../../http/router.ts';
import type { WebServices } from '../web-services.ts';

/** A module of pages: registers its routes in the pages' scope of the app's router. */
export type PageRoutes = (router: RouteScope, services: WebServices) => void;
