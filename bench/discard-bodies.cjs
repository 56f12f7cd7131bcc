// autocannon setupClient (a module path: the load generator runs in a worker thread): the client
// keeps no response body. autocannon appends every body to a string, a UTF-8 decode that for
// compressed (binary) bodies costs it more than the server spends answering: a bare Koa handler
// sending 5.2 KB of random bytes reached 29 % of the same handler's constant text, against 90 %
// for 5.2 KB of ASCII. Our benchmarks read only statuses and timings, so the client drops bodies
// and measures the server instead. Status, byte counts and latencies are unchanged.
module.exports = function discardBodies(client) {
  client.pipelinedRequests.addBody = () => {};
};
