import type { Dispatcher } from 'undici';
import { deliveryKey, KeptDispatchers } from '../../integrations/outbound/http';
import type { CheckedUrl } from '../../integrations/fetch';

const checked = (url: string, ...addresses: string[]): CheckedUrl => ({
  url: new URL(url),
  hostname: new URL(url).hostname,
  addresses: addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
});
const init = { timeoutMs: 5000, policy: {} };

function fakeDispatcher(closed: string[], name: string): Dispatcher {
  return { close: async () => void closed.push(name) } as unknown as Dispatcher;
}

describe('kept webhook delivery dispatchers', () => {
  it('share a connection only for the same origin and the same checked addresses', () => {
    const a = deliveryKey(checked('https://hooks.example.com/a', '93.184.216.34'), init);
    expect(deliveryKey(checked('https://hooks.example.com/b?x=1', '93.184.216.34'), init)).toBe(a);
    // The same addresses in another order: the same set.
    expect(deliveryKey(checked('https://h.example.com/', '93.184.216.34', '2606:2800:220:1::1'), init)).toBe(
      deliveryKey(checked('https://h.example.com/', '2606:2800:220:1::1', '93.184.216.34'), init),
    );
    // The name now resolves elsewhere (or to one more address): never the earlier connections.
    expect(deliveryKey(checked('https://hooks.example.com/a', '93.184.216.35'), init)).not.toBe(a);
    expect(deliveryKey(checked('https://hooks.example.com/a', '93.184.216.34', '93.184.216.35'), init)).not.toBe(a);
    expect(deliveryKey(checked('https://hooks.example.com:8443/a', '93.184.216.34'), init)).not.toBe(a);
    expect(deliveryKey(checked('https://other.example.com/a', '93.184.216.34'), init)).not.toBe(a);
    expect(deliveryKey(checked('https://hooks.example.com/a', '93.184.216.34'), { ...init, timeoutMs: 1000 })).not.toBe(a);
  });

  it('reuse by key, replace on request, and close the least recently used past the limit', async () => {
    const closed: string[] = [];
    const kept = new KeptDispatchers(2);
    const one = kept.get('one', false, () => fakeDispatcher(closed, 'one'));
    expect(one.reused).toBe(false);
    expect(kept.get('one', false, () => fakeDispatcher(closed, 'one again')).reused).toBe(true);
    kept.get('two', false, () => fakeDispatcher(closed, 'two'));
    kept.get('one', false, () => fakeDispatcher(closed, 'unused'));
    kept.get('three', false, () => fakeDispatcher(closed, 'three'));
    expect(closed).toEqual(['two']);
    expect(kept.size).toBe(2);
    const fresh = kept.get('one', true, () => fakeDispatcher(closed, 'one fresh'));
    expect(fresh.reused).toBe(false);
    expect(closed).toEqual(['two', 'one']);
    await kept.close();
    expect(closed.sort()).toEqual(['one', 'one fresh', 'three', 'two']);
    expect(kept.size).toBe(0);
  });
});
