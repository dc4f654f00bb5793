import { AsyncLocalStorage } from "node:async_hooks";
import { getBetterAuthVersion } from "@better-auth/core/context";

/**
 * Better Auth keeps its request state, its adapter's transaction and its endpoint context in
 * `AsyncLocalStorage`s, created on its first call and kept on `globalThis`. On Node 20 a storage
 * that has run once stays enabled, and an enabled storage keeps promise hooks on for the whole
 * process: every promise of every request then pays for them (about a tenth of a `/v1` read's CPU
 * in a profile, docs/benchmarks.md), although only Better Auth's own calls read the stores.
 *
 * `installQuietAuthStorage` gives Better Auth storages that turn themselves off when none of
 * their `run`s is in progress (in any of them), and on again at the next `run`. Better Auth enters
 * its stores only through `run` (a request's state around each endpoint call, the adapter's
 * transaction, the endpoint context), so every read of a store happens inside one. Installed
 * before Better Auth creates its own (it keeps an existing one: `??=`); idempotent.
 */
const GLOBAL_KEY = Symbol.for("better-auth:global");
const STORAGE_KEYS = [
  "requestStateAsyncStorage",
  "adapterAsyncStorage",
  "endpointContextAsyncStorage",
] as const;

let running = 0;
const storages: QuietStorage[] = [];

function settled(): void {
  running -= 1;
  if (running === 0) for (const storage of storages) storage.disable();
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

export class QuietStorage extends AsyncLocalStorage<unknown> {
  constructor() {
    super();
    storages.push(this);
  }

  // The signature is AsyncLocalStorage's own: any callback, any arguments.
  // biome-ignore lint/suspicious/noExplicitAny: mirrors the overridden method's signature.
  override run<R>(store: unknown, callback: (...args: any[]) => R, ...args: any[]): R {
    running += 1;
    let result: R;
    try {
      result = super.run(store, callback, ...args);
    } catch (error) {
      settled();
      throw error;
    }
    // The caller still sees the result's rejection; this branch only counts its end.
    if (isThenable(result)) result.then(settled, settled);
    else settled();
    return result;
  }
}

/** Puts the quiet storages where Better Auth looks for its own (see above). */
export function installQuietAuthStorage(): void {
  // Creates Better Auth's global object the way Better Auth does when it is not there yet.
  getBetterAuthVersion();
  const scope = globalThis as unknown as Record<symbol, { context: Record<string, unknown> } | undefined>;
  const context = scope[GLOBAL_KEY]?.context;
  if (!context) throw new Error("Better Auth's global context is not where Kassa expects it");
  for (const key of STORAGE_KEYS) context[key] ??= new QuietStorage();
}
