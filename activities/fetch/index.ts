export { classifyAddress, describeAddress, type AddressClass, type AddressInfo } from './addressClass';
export { pinnedDispatcher, type PinnedDispatcherOptions } from './pinnedDispatcher';
export { safeFetch, type SafeFetchOptions, type SafeFetchResult } from './safeFetch';
export { assertSafeUrl, checkUrl, testStackLoopbackOnly, systemResolver, type AddressPolicy, type CheckedUrl, type ResolvedAddress, type Resolver } from './urlGuard';
