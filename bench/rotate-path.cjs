// autocannon setupRequest for a run in a worker thread (functions cannot be handed to a worker, a
// module path can): each request takes the next path of BENCH_PATHS (a JSON array), shared by all
// connections, so that no two requests in a row ask the same thing.
const paths = JSON.parse(process.env.BENCH_PATHS || '[]');
let i = 0;
module.exports = function rotatePath(req) {
  return { ...req, path: paths[i++ % paths.length] };
};
