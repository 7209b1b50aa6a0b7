import { classifyAddress, type AddressClass } from '../../../integrations/fetch/address-class';
import { addressPolicy, loadConfig } from '../../../domain/config';
import { assertSafeUrl, checkUrl, type Resolver } from '../../../integrations/fetch/url-guard';
import { ServiceError } from '../../../core/errors';

describe('classifyAddress', () => {
  const cases: [string, AddressClass, string?][] = [
    // public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'], // just past 172.16/12
    ['100.128.0.1', 'public'], // just past 100.64/10
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    // private (RFC 1918)
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    // link-local
    ['169.254.1.1', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    // carrier-grade NAT
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    // multicast
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    // unspecified
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'], // 0/8 "this network"
    ['::', 'unspecified'],
    // broadcast
    ['255.255.255.255', 'broadcast'],
    // reserved and special-purpose
    ['192.0.2.1', 'reserved'], // TEST-NET-1
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'], // benchmarking
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['2001:db8::1', 'reserved'], // documentation
    ['2001::1', 'reserved'], // Teredo
    ['100::1', 'reserved'], // discard
    ['fec0::1', 'reserved'], // deprecated site-local
    ['64:ff9b:1::a00:1', 'reserved'], // local-use NAT64 prefix
    ['4000::1', 'reserved'], // outside global unicast 2000::/3
    // cloud metadata
    ['169.254.169.254', 'cloudMetadata'],
    ['169.254.170.2', 'cloudMetadata'],
    ['100.100.100.200', 'cloudMetadata'],
    ['fd00:ec2::254', 'cloudMetadata'],
    ['fd00:0ec2:0000::0254', 'cloudMetadata'],
    // unique-local IPv6
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
  ];
  test.each(cases)('%s is %s', (address, cls) => {
    const info = classifyAddress(address);
    expect(info.class).toBe(cls);
    expect(info.embedded).toBeUndefined();
  });

  const embedded: [string, AddressClass, string, string][] = [
    ['::ffff:127.0.0.1', 'loopback', 'ipv4Mapped', '127.0.0.1'],
    ['::ffff:7f00:1', 'loopback', 'ipv4Mapped', '127.0.0.1'], // the same, hex spelling
    ['::ffff:10.1.2.3', 'private', 'ipv4Mapped', '10.1.2.3'],
    ['::ffff:169.254.169.254', 'cloudMetadata', 'ipv4Mapped', '169.254.169.254'],
    ['::ffff:100.64.1.1', 'carrierGradeNat', 'ipv4Mapped', '100.64.1.1'],
    ['::ffff:8.8.8.8', 'public', 'ipv4Mapped', '8.8.8.8'],
    ['::ffff:0:192.168.0.1', 'private', 'ipv4Translated', '192.168.0.1'],
    ['::7f00:1', 'loopback', 'ipv4Compatible', '127.0.0.1'],
    ['::a00:1', 'private', 'ipv4Compatible', '10.0.0.1'],
    ['64:ff9b::10.0.0.1', 'private', 'nat64', '10.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'cloudMetadata', 'nat64', '169.254.169.254'],
    ['64:ff9b::8.8.8.8', 'public', 'nat64', '8.8.8.8'],
    ['2002:a00:1::1', 'private', '6to4', '10.0.0.1'],
    ['2002:7f00:1::', 'loopback', '6to4', '127.0.0.1'],
  ];
  test.each(embedded)('%s is %s (%s of %s)', (address, cls, via, ipv4) => {
    const info = classifyAddress(address);
    expect(info.class).toBe(cls);
    expect(info.embedded).toEqual({ via, ipv4 });
  });

  // ipaddr.js reads the dotted spelling ::a.b.c.d as mapped (it is really IPv4-compatible ::7f00:1);
  // either way the embedded IPv4 address is what is classified.
  test.each([
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::169.254.169.254', 'cloudMetadata'],
  ] as const)('%s (dotted IPv4-compatible) is %s', (address, cls) => {
    expect(classifyAddress(address).class).toBe(cls);
    expect(classifyAddress(address).embedded?.ipv4).toBeDefined();
  });

  test.each(['example.com', '0x7f.1', '2130706433', '127.1', '', '1.2.3.4.5', '[::1]'])(
    '%j is not a canonical IP address: throws',
    (text) => {
      expect(() => classifyAddress(text)).toThrow(TypeError);
    },
  );
});

/** A resolver that answers from a table and counts calls. */
function tableResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = (async (hostname: string) => {
    calls.push(hostname);
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as Resolver & { calls: string[] };
  fn.calls = calls;
  return fn;
}

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(err)}`);
  return err;
}

describe('checkUrl / assertSafeUrl', () => {
  test('a name that resolves only to public addresses passes, with the addresses to pin', async () => {
    const resolver = tableResolver({ 'cdn.example.com': ['93.184.216.34', '2606:2800:220:1::248'] });
    const checked = await assertSafeUrl('https://cdn.example.com/a.mp3', { resolver });
    expect(checked.hostname).toBe('cdn.example.com');
    expect(checked.addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:2800:220:1::248']);
  });

  test.each([
    [['10.0.0.7'], '10.0.0.7 is a private (RFC 1918) address'],
    [['192.168.0.10'], 'private'],
    [['172.20.1.1'], 'private'],
    [['127.0.0.1'], 'loopback'],
    [['169.254.169.254'], 'cloud metadata'],
    [['169.254.10.10'], 'link-local'],
    [['100.64.0.5'], 'carrier-grade NAT'],
    [['fd00:ec2::254'], 'cloud metadata'],
    [['fc00::5'], 'unique-local'],
    [['fe80::5'], 'link-local'],
    [['::ffff:10.0.0.1'], 'ipv4Mapped IPv6 carrying 10.0.0.1) is a private'],
    [['::ffff:127.0.0.1'], 'loopback'],
    [['64:ff9b::c0a8:0101'], 'nat64 IPv6 carrying 192.168.1.1'],
    [['0.0.0.0'], 'unspecified'],
    [['224.0.0.251'], 'multicast'],
    [['93.184.216.34', '10.0.0.1'], 'private'], // one bad address among good ones is enough
  ])('a DNS name resolving to %j is UNSAFE_URL (%s)', async (addresses, detail) => {
    const err = await rejection(
      assertSafeUrl('https://media.example.net/x.mp4', { resolver: tableResolver({ 'media.example.net': addresses }) }),
    );
    expect(err.code).toBe('UNSAFE_URL');
    expect(err.status).toBe(422);
    expect(err.detail).toContain('media.example.net resolves to');
    expect(err.detail).toContain(detail);
  });

  test.each([
    ['https://127.0.0.1/a.mp3', 'loopback'],
    ['https://127.1/a.mp3', 'loopback'], // shorthand, normalised by the URL parser
    ['https://0x7f.0.0.1/a.mp3', 'loopback'],
    ['https://2130706433/a.mp3', 'loopback'],
    ['https://017700000001/a.mp3', 'loopback'], // octal
    ['https://[::1]/a.mp3', 'loopback'],
    ['https://[::ffff:127.0.0.1]/a.mp3', 'loopback'],
    ['https://[::ffff:a9fe:a9fe]/latest/meta-data/', 'cloud metadata'],
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'cloud metadata'],
    ['https://10.0.0.1:8443/a.mp3', 'private'],
    ['https://[fe80::1]/a.mp3', 'link-local'],
    ['https://0.0.0.0/a.mp3', 'unspecified'],
    ['https://255.255.255.255/a.mp3', 'broadcast'],
    ['https://240.0.0.1/a.mp3', 'reserved'],
  ])('IP literal %s is UNSAFE_URL (%s) without any DNS lookup', async (url, detail) => {
    const resolver = tableResolver({});
    const err = await rejection(assertSafeUrl(url, { resolver }));
    expect(err.code).toBe('UNSAFE_URL');
    expect(err.detail).toContain(detail);
    expect(resolver.calls).toEqual([]);
  });

  test.each(['https://metadata.google.internal/computeMetadata/v1/', 'https://METADATA.google.internal./x', 'https://metadata.goog/'])(
    '%s is refused by name, before resolving',
    async (url) => {
      const resolver = tableResolver({});
      const err = await rejection(assertSafeUrl(url, { resolver }));
      expect(err.code).toBe('UNSAFE_URL');
      expect(err.detail).toContain('cloud metadata');
      expect(resolver.calls).toEqual([]);
    },
  );

  test('localhost through the system resolver is loopback', async () => {
    const err = await rejection(assertSafeUrl('https://localhost/a.mp3'));
    expect(err.code).toBe('UNSAFE_URL');
    expect(err.detail).toMatch(/localhost resolves to .* loopback/);
  });

  test.each([
    ['http://example.com/a.mp3', 'only https'],
    ['ftp://example.com/a.mp3', 'only https'],
    ['file:///etc/passwd', 'only https'],
    ['https://user:secret@example.com/a.mp3', 'user name or password'],
    ['not a url', 'not a valid URL'],
    [`https://example.com/${'a'.repeat(2050)}`, 'longer than 2048'],
  ])('%s is INVALID_URL', async (url, detail) => {
    const err = await rejection(assertSafeUrl(url, { resolver: tableResolver({ 'example.com': ['93.184.216.34'] }) }));
    expect(err.code).toBe('INVALID_URL');
    expect(err.detail).toContain(detail);
  });

  test('a redirect hop to http is UNSAFE_URL (a downgrade), not INVALID_URL', async () => {
    const err = await rejection(checkUrl('http://example.com/a.mp3', {}, 'redirect'));
    expect(err.code).toBe('UNSAFE_URL');
  });

  test('a name that does not resolve is SOURCE_NOT_FOUND; a resolver failure is SOURCE_TIMEOUT (retryable)', async () => {
    expect((await rejection(assertSafeUrl('https://nowhere.example/a', { resolver: tableResolver({}) }))).code).toBe('SOURCE_NOT_FOUND');
    const flaky: Resolver = async () => {
      throw Object.assign(new Error('queryA ETIMEOUT'), { code: 'EAI_AGAIN' });
    };
    const err = await rejection(assertSafeUrl('https://slow.example/a', { resolver: flaky }));
    expect(err.code).toBe('SOURCE_TIMEOUT');
    expect(err.retryable).toBe(true);
  });

  describe('the test stack reaches loopback and nothing else', () => {
    const policy = (table: Record<string, string[]>) => ({ loopbackOnly: true, resolver: tableResolver(table) });
    test('loopback passes', async () => {
      await expect(assertSafeUrl('https://127.0.0.1:8443/a', policy({}))).resolves.toBeDefined();
      await expect(assertSafeUrl('https://[::1]/a', policy({}))).resolves.toBeDefined();
      await expect(assertSafeUrl('https://media.test/a', policy({ 'media.test': ['127.0.0.1'] }))).resolves.toBeDefined();
    });
    test.each([
      '10.0.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      'fd00::1',
      'fe80::1',
      '0.0.0.0',
      '224.0.0.1',
      '93.184.216.34',
      '2606:2800:220:1::248',
    ])('%s fails, public addresses included', async (address) => {
      const err = await rejection(assertSafeUrl('https://media.test/a', policy({ 'media.test': [address] })));
      expect(err.code).toBe('UNSAFE_URL');
    });
  });

  test('an invented name is refused before any DNS lookup on the test stack', async () => {
    const looked: string[] = [];
    const dnsModule = require('node:dns') as typeof import('node:dns');
    const spy = jest.spyOn(dnsModule.promises, 'lookup').mockImplementation(async (name: string) => {
      looked.push(name);
      throw Object.assign(new Error('no DNS in tests'), { code: 'ENOTFOUND' });
    });
    try {
      for (const url of ['https://media.fuzzer-invented.example/a.mp3', 'https://example.com/x', 'https://xn--n3h.example/']) {
        const err = await rejection(assertSafeUrl(url, { loopbackOnly: true }));
        expect(err.code).toBe('UNSAFE_URL');
        expect(err.detail).toMatch(/loopback only/);
      }
      expect(looked).toEqual([]);
      // localhost is this machine by definition, so it may be looked up.
      await assertSafeUrl('https://localhost/a', { loopbackOnly: true }).catch(() => undefined);
      expect(looked).toEqual(['localhost']);
    } finally {
      spy.mockRestore();
    }
  });

  test('the settings give the loopback-only policy to APP_ENV=test and to nothing else', () => {
    const policy = (APP_ENV: string) =>
      addressPolicy(
        loadConfig({ DATABASE_URL: 'postgresql://x/y', APP_ENV, SECRETS_KEY: 'k'.repeat(40), PUBLIC_BASE_URL: 'https://a.example' }),
      );
    expect(policy('test').loopbackOnly).toBe(true);
    expect(policy('production').loopbackOnly).toBe(false);
    expect(policy('development').loopbackOnly).toBe(false);
  });
});
