import http from 'node:http';

/**
 * The HTTP server of the api role. Idle keep-alive connections stay open longer than the idle
 * timeouts of load balancers and clients (60 s is common): with Node's default of 5 s the server
 * closes a connection just as a client sends its next request on it, which that client sees as a
 * reset (a 502 behind a proxy).
 */
export function createHttpServer(handler?: http.RequestListener): http.Server {
  const server = handler ? http.createServer(handler) : http.createServer();
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000; // above keepAliveTimeout, as Node requires for keep-alive to apply
  return server;
}
