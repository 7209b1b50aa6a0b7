import { spawn } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { createHttpServer } from '../api/http/server';
import { freePort } from '../stack/proc';
import { createWorkspace, startTestApi, type TestApi } from './support/harness';

// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, pinned) against /mcp: the four
// server scenarios every server must pass (issue 51, item 8). Its client sends no credentials, so it talks to a
// loopback relay that adds an API key and passes everything else through as sent, Host and Origin included (the
// dns-rebinding scenario sends a foreign and a loopback Origin and expects a refusal of the first only). The API's
// own URL is http://127.0.0.1:<port>, and the suite's loopback Origin says localhost: it must be accepted.

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
const CONFORMANCE = path.join(__dirname, '../node_modules/@modelcontextprotocol/conformance/dist/index.js');

let api: TestApi;
let server: net.Server;
let relay: http.Server;
let relayUrl: string;

beforeAll(async () => {
  // The API's own URL names the port it listens on, as in production (its MCP transport compares Origin with it).
  const port = await freePort();
  api = await startTestApi({}, { baseUrl: `http://127.0.0.1:${port}` });
  const ws = await createWorkspace(api.deps, { plan: 'pro' });
  server = createHttpServer(api.app);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  relay = http.createServer((req, res) => {
    const upstream = http.request(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${ws.apiKey}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  relayUrl = `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await new Promise((r) => relay.close(r));
  await new Promise((r) => server.close(r));
  await api.close();
});

function conformance(scenario: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONFORMANCE, 'server', '--url', relayUrl, '--scenario', scenario], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d.toString()));
    child.stderr.on('data', (d) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

it.each(SCENARIOS)(
  'passes the %s scenario',
  async (scenario) => {
    const { code, output } = await conformance(scenario);
    expect({ scenario, code, failures: output.split('\n').filter((l) => /FAIL|✗|❌/.test(l)) }).toEqual({
      scenario,
      code: 0,
      failures: [],
    });
  },
  60_000,
);
