import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createWorkspace, startTestApi, type TestApi, type TestWorkspace } from './support/harness';

// Issue 14: the MCP Inspector's CLI (@modelcontextprotocol/inspector, a pinned
// devDependency, run offline from node_modules) as an outside client of the
// tool server, over real HTTP with an API key header. --stored-auth-only: a
// wrong key must fail, not start an interactive OAuth sign-in.

const CLI = path.join(__dirname, '..', 'node_modules', '.bin', 'mcp-inspector');

let api: TestApi;
let server: Server;
let url: string;
let ws: TestWorkspace;
let home: string;

beforeAll(async () => {
  api = await startTestApi();
  server = createServer(api.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  ws = await createWorkspace(api.deps, { plan: 'pro' });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'inspector-home-'));
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await api.close();
  fs.rmSync(home, { recursive: true, force: true });
});

function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      CLI,
      ['--cli', url, '--transport', 'http', '--stored-auth-only', '--format', 'json', '--quiet', ...args],
      // Its catalog and client state in a throw-away home, never the user's.
      {
        timeout: 60_000,
        env: {
          ...process.env,
          HOME: home,
          MCP_CATALOG_PATH: path.join(home, 'mcp.json'),
          MCP_CLIENT_CONFIG_PATH: path.join(home, 'client.json'),
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the MCP Inspector CLI as an outside client', () => {
  it('finds every tool schema portable in its strict check: no type arrays, no schema that declares nothing (issue 26)', async () => {
    const listed = await inspector(['--header', `Authorization: Bearer ${ws.apiKey}`, '--method', 'tools/list', '--strict']);
    expect(listed.code).toBe(0);
    const out = JSON.parse(listed.stdout) as { result: { tools: unknown[] }; schemaFindings?: unknown[] };
    expect(out.result.tools).toHaveLength(14);
    // The findings, when there are any, ride along in the JSON envelope and are reported on stderr.
    expect(out.schemaFindings ?? []).toEqual([]);
    expect(listed.stderr).not.toMatch(/portab/i);
  });

  it('lists the fourteen tools and calls list_jobs with an API key header', async () => {
    const listed = await inspector(['--header', `Authorization: Bearer ${ws.apiKey}`, '--method', 'tools/list']);
    expect(listed.code).toBe(0);
    // --format json: one object, the method's result under `result`.
    const tools = (JSON.parse(listed.stdout) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(tools).toHaveLength(14);
    expect(tools).toEqual(expect.arrayContaining(['get_video_transcript', 'list_jobs', 'get_transcript']));

    const called = await inspector([
      '--header',
      `Authorization: Bearer ${ws.apiKey}`,
      '--method',
      'tools/call',
      '--tool-name',
      'list_jobs',
      '--tool-arg',
      'limit=5',
    ]);
    expect(called.code).toBe(0);
    const { result } = JSON.parse(called.stdout) as { result: { isError?: boolean; structuredContent?: { jobs: unknown[] } } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.jobs).toEqual([]);
  }, 120_000);

  it('a wrong key fails without an interactive sign-in', async () => {
    const wrong = await inspector(['--header', 'Authorization: Bearer tsk_wrong', '--method', 'tools/list']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).not.toContain('get_video_transcript');
  }, 120_000);
});
