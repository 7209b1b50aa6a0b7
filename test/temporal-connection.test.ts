import { connectTemporal } from '../integrations/temporal-connection';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

// A process closing its Temporal connection (API shutdown, the end of a test
// file) while a call is still retrying an unreachable server must neither
// crash on a retry that fires after the close ("Channel has been shut down",
// thrown from a timer: an uncaught exception) nor leave that call unsettled.
// Jest fails the running test on an uncaught exception (a listener of the
// test's own sees none), so each test stays open a while after the close for
// a stray retry to throw in.

const [host, port] = process.env.TEMPORAL_ADDRESS!.split(':') as [string, string];
let proxy: TcpProxy;

beforeEach(async () => {
  proxy = await startTcpProxy({ host, port: Number(port) });
});
afterEach(() => proxy.close());

const settle = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: Error) => err.message,
  );
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Temporal connection shutdown', () => {
  it('a call retrying an unreachable server when the connection closes ends as an error; no retry runs after the close', async () => {
    const temporal = await connectTemporal(proxy.address);
    await temporal.connection.workflowService.getSystemInfo({});
    await proxy.cut();
    // Retried (UNAVAILABLE) every ~100 ms+ while the server is away.
    const call = settle(temporal.connection.workflowService.getSystemInfo({}));
    await pause(300);
    const t0 = Date.now();
    await temporal.close();
    expect(Date.now() - t0).toBeLessThan(3_000);
    // Without the guard the retry throws in its timer and the call never settles.
    const outcome = await Promise.race([call, new Promise((r) => setTimeout(() => r('still pending'), 8_000))]);
    expect(outcome).toMatch(/UNAVAILABLE/);
    // Beyond the delays of the first retries: a retry left scheduled by close() would throw by now.
    await pause(1_500);
  }, 20_000);

  it('a call still waiting for the channel when close runs fails to its caller with UNAVAILABLE instead of being retried on the shut channel', async () => {
    const temporal = await connectTemporal(proxy.address);
    // Issued in the same turn as the close: grpc-js fails it "before call started".
    const call = settle(temporal.connection.workflowService.getSystemInfo({}));
    await temporal.close();
    expect(await Promise.race([call, new Promise((r) => setTimeout(() => r('still pending'), 8_000))])).toMatch(/UNAVAILABLE/);
    await pause(500);
  }, 20_000);
});
