/**
 * Better Auth's client keeps the `fetch` it finds when it is created (at import), so stubbing
 * the global later would not reach it. The setup file installs this delegate before any test
 * module loads; a test points it at its own stub with `routeFetchTo`.
 */
const realFetch = globalThis.fetch;
let current: typeof fetch = realFetch;

export function installFetchDelegate() {
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => current(input, init)) as typeof fetch;
}

export function routeFetchTo(impl: typeof fetch | null) {
  current = impl ?? realFetch;
}
