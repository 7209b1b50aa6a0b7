// A webhook subscriber in its own process, verifying signatures with Node's
// crypto directly (independent of the service's signing code). Forked by the
// tests; configured and reporting over the IPC channel.
//   config message: { secret, failFirst }   (failFirst: answer 500 to that many valid deliveries)
//   reports:        { event_id, type, status, duplicate, signature_ok, timestamp_ok, body, raw, headers, connection }
const https = require('node:https');
const crypto = require('node:crypto');

const TOLERANCE_SECONDS = 300;
let secret = '';
let failuresLeft = 0;
const seen = new Set();

process.on('message', (msg) => {
  if (msg.secret !== undefined) secret = msg.secret;
  if (msg.failFirst !== undefined) failuresLeft = msg.failFirst;
});

const server = https.createServer({ key: process.env.TLS_KEY, cert: process.env.TLS_CERT }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const eventId = req.headers['x-service-event-id'] || '';
    const timestamp = Number(req.headers['x-service-timestamp']);
    const signature = String(req.headers['x-service-signature'] || '');
    const expected = crypto.createHmac('sha256', secret).update(`${eventId}.${timestamp}.${raw}`).digest('hex');
    const signatureOk = signature.length === expected.length && crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
    const timestampOk = Number.isFinite(timestamp) && Math.abs(Date.now() / 1000 - timestamp) <= TOLERANCE_SECONDS;
    let status;
    let duplicate = false;
    if (!signatureOk) status = 401;
    else if (!timestampOk) status = 400;
    else if (failuresLeft > 0) {
      failuresLeft -= 1;
      status = 500;
    } else {
      duplicate = seen.has(eventId);
      seen.add(eventId);
      status = 200;
    }
    let body = null;
    try {
      body = JSON.parse(raw);
    } catch {}
    process.send({
      // The wall clock to a fraction of a millisecond (Date.now() counts whole ones).
      received_at: performance.timeOrigin + performance.now(),
      connection: `${req.socket.remoteAddress}:${req.socket.remotePort}`,
      event_id: eventId,
      type: body && body.type,
      status,
      duplicate,
      signature_ok: signatureOk,
      timestamp_ok: timestampOk,
      body,
      raw,
      headers: req.headers,
    });
    res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no');
  });
});
server.listen(0, '127.0.0.1', () => process.send({ listening: server.address().port }));
