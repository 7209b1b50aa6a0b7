// Load generator, run as its own process so it does not share the server's
// event loop. Input: one JSON argument. Output: one JSON line with the results.
//   { url, method, connections, durationSeconds, amount?, authKeys: [..], body?: object, uniqueJob?: true }
// With `amount`, exactly that many requests are sent (a burst) and `durationSeconds` is ignored.
// With authKeys, requests rotate over the keys (one workspace each) so the
// per-workspace rate limits stay in force while the service is measured as a whole.
const autocannon = require('autocannon');
const { randomUUID } = require('node:crypto');

const cfg = JSON.parse(process.argv[2]);
let n = 0;
// With `amount`, autocannon stops at its next 1 s sample after the last answer, so its duration is rounded
// up to whole seconds (a burst of 4.1 s reads 5.01 s). The burst's own time runs to the last answer.
const startedAt = performance.now();
let lastAnswerAt = startedAt;
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const videoId = () => Array.from({ length: 11 }, () => ID_CHARS[Math.floor(Math.random() * 64)]).join('');

const instance = autocannon(
  {
    url: cfg.url,
    connections: cfg.connections,
    duration: cfg.durationSeconds,
    ...(cfg.amount ? { amount: cfg.amount } : {}),
    requests: [
      {
        method: cfg.method ?? 'GET',
        setupRequest: (req) => {
          const headers = { ...req.headers, 'content-type': 'application/json' };
          if (cfg.authKeys?.length) headers.authorization = `Bearer ${cfg.authKeys[n++ % cfg.authKeys.length]}`;
          if (cfg.uniqueJob) {
            headers['idempotency-key'] = `bench-${randomUUID()}`;
            return {
              ...req,
              headers,
              body: JSON.stringify({ ...cfg.body, source: { url: `https://www.youtube.com/watch?v=${videoId()}` } }),
            };
          }
          return { ...req, headers, ...(cfg.body ? { body: JSON.stringify(cfg.body) } : {}) };
        },
      },
    ],
  },
  (err, result) => {
    if (err) {
      console.error(err);
      process.exit(1);
    }
    const statuses = {};
    const seconds = cfg.amount ? (lastAnswerAt - startedAt) / 1000 : result.duration;
    for (const [k, v] of Object.entries(result.statusCodeStats ?? {})) statuses[k] = v.count;
    process.stdout.write(
      JSON.stringify({
        rps: cfg.amount ? result.requests.total / seconds : result.requests.average,
        seconds,
        total: result.requests.total,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors,
        non2xx: result.non2xx,
        statuses,
      }) + '\n',
    );
  },
);
instance.on('response', () => {
  lastAnswerAt = performance.now();
});
process.on('SIGINT', () => instance.stop());
