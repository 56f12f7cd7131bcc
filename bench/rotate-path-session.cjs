// autocannon setupRequest for a run in a worker thread: each request takes the next path of
// BENCH_PATHS and the next session cookie of BENCH_COOKIES (JSON arrays): each request is another
// signed-in person on another page, so nothing one person's page holds can be kept for the next.
const paths = JSON.parse(process.env.BENCH_PATHS || '[]');
const cookies = JSON.parse(process.env.BENCH_COOKIES || '[]');
let i = 0;
module.exports = function rotatePathSession(req) {
  const n = i++;
  return { ...req, path: paths[n % paths.length], headers: { ...req.headers, cookie: cookies[n % cookies.length] } };
};
