// autocannon setupRequest for the vote benchmark (runs in autocannon's worker thread): each
// request is the next prepared vote of BENCH_VOTES (a JSON array of {path, cookie, body}), shared
// by all connections, so that with `amount` equal to its length every vote is sent exactly once.
const votes = JSON.parse(process.env.BENCH_VOTES || '[]');
let i = 0;
module.exports = function nextVote(req) {
  const vote = votes[i++ % votes.length];
  return {
    ...req,
    method: 'POST',
    path: vote.path,
    headers: { ...req.headers, cookie: vote.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: vote.body,
  };
};
