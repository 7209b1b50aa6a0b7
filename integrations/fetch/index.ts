export { classifyAddress, describeAddress, type AddressClass, type AddressInfo } from './address-class';
export { pinnedDispatcher, type PinnedDispatcherOptions } from './pinned-dispatcher';
export { safeFetch, type SafeFetchOptions, type SafeFetchResult } from './safe-fetch';
export {
  assertSafeUrl,
  checkUrl,
  systemResolver,
  type AddressPolicy,
  type CheckedUrl,
  type ResolvedAddress,
  type Resolver,
} from './url-guard';
export { guardedFetch, type ClientMetadataFetchOptions } from './client-metadata';
