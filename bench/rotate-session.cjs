// autocannon setupRequest for a run in a worker thread: each request carries the next session
// cookie of BENCH_COOKIES (a JSON array), so every request is a different signed-in person and
// nothing one person's page holds can be kept for the next.
const cookies = JSON.parse(process.env.BENCH_COOKIES || '[]');
let i = 0;
module.exports = function rotateSession(req) {
  return { ...req, headers: { ...req.headers, cookie: cookies[i++ % cookies.length] } };
};
