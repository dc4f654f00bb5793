/**
 * A Kassa server in the test's own process: the same composition as `npm start` (`createKassa`
 * in src/server.ts: the migrated database, Better Auth, the job worker, the app) on a database
 * of its own, without a child process or a socket. Requests go to `app.fetch`: the harness
 * routes the process's `fetch` for the server's URL (http://localhost:<unused port>) to it, so
 * the helpers and the Polar SDK that tests use over HTTP work unchanged.
 *
 * Better Auth's origin and CSRF checks stay on. It switches them off when NODE_ENV is `test`
 * (read once, when @better-auth/core/env is first imported) or TEST is set (read when an auth
 * instance is created, and per request for the client address), and vitest sets both in its
 * workers: the server project's setup file (no-test-env.ts) deletes them before any test file
 * is imported, and every start here checks that Better Auth sees no test environment and that
 * the auth context it built checks origins, or throws.
 */
import { pathToFileURL } from "node:url";
import type { Logger, LogLevel } from "../../src/kit/logger.js";
import { createTestDatabase } from "./database.js";
import { ServerApiError, type StartTestServerOptions, type TestServer } from "./server.js";
import { TEST_ENV_VARIABLES } from "./test-env.js";

type Host = typeof import("./in-process-host.js");
let host: Promise<Host> | undefined;
/**
 * The server side: the bundle the global setup built (build-host.ts), imported by Node itself
 * (vitest.config.ts externalizes it), or the source through vitest when there is none.
 */
const loadHost = (): Promise<Host> => {
  const bundle = process.env.KASSA_TEST_IN_PROCESS_HOST;
  host ??= bundle ? import(pathToFileURL(bundle).href) : import("./in-process-host.js");
  return host;
};

/** What the in-process server's `fetch` answers for, by origin. */
const routes = new Map<string, (request: Request) => Promise<Response>>();
const networkFetch = globalThis.fetch;

export interface InProcessOptions extends StartTestServerOptions {
  /**
   * Only for in-process-origin.test.ts, to show its assertions can fail: builds the server
   * with TEST=true in the environment, as a vitest worker has it, so Better Auth switches its
   * origin checks off, and skips the checks below.
   */
  unsafeBetterAuthTestMode?: boolean;
}

export async function startInProcessServer(
  options: InProcessOptions = {},
): Promise<TestServer & { database: Awaited<ReturnType<typeof createTestDatabase>> | undefined }> {
  for (const name of ["KASSA_CRASH_AT"])
    if (options.env?.[name] !== undefined) throw new Error(`${name} needs a server in a child process`);
  const { asJson, createKassa, hostError, hostOps, loadConfig, testPasswordHasher } = await loadHost();
  if (!options.unsafeBetterAuthTestMode) await assertNoTestEnvironment();

  const port = options.port ?? unusedPort();
  const url = `http://localhost:${port}`;
  if (routes.has(url)) throw new Error(`an in-process server already answers at ${url}`);
  const database =
    options.database ??
    (options.useTemplate === false && options.env?.DATA_DIR ? undefined : await createTestDatabase());
  // The environment a child server gets (server.ts), as the configuration's source: the
  // process's own environment is not changed.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !(TEST_ENV_VARIABLES as readonly string[]).includes(k)) env[k] = v;
  Object.assign(
    env,
    {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: url,
      RATE_LIMIT: "off",
      LOG_LEVEL: "warn",
    },
    database?.env ?? {},
    options.env ?? {},
  );
  for (const name of options.unset ?? []) delete env[name];

  let output = "";
  const config = loadConfig(env);
  const logger = capturingLogger(config.logLevel, (line) => {
    output += line;
  });
  const password = testPasswordHasher(options.fastHash !== false);
  let kassa: Awaited<ReturnType<typeof createKassa>>;
  const previousTest = process.env.TEST;
  if (options.unsafeBetterAuthTestMode) process.env.TEST = "true";
  try {
    kassa = await createKassa(config, { logger, ...(password ? { password } : {}) });
  } catch (error) {
    if (!options.keepDatabase) await database?.drop();
    throw error;
  } finally {
    if (options.unsafeBetterAuthTestMode) {
      if (previousTest === undefined) delete process.env.TEST;
      else process.env.TEST = previousTest;
    }
  }
  if (!options.unsafeBetterAuthTestMode) {
    const context = await kassa.auth.$context;
    if (context.skipOriginCheck !== false || context.skipCSRFCheck !== false) {
      await kassa.close();
      if (!options.keepDatabase) await database?.drop();
      throw new Error("Better Auth was built with its origin or CSRF checks off");
    }
  }
  kassa.setReady(true);
  // As @hono/node-server hands the app a request: the client's socket, on the loopback.
  const bindings = { incoming: { socket: { remoteAddress: "127.0.0.1" } }, outgoing: {} };
  routes.set(url, async (request) => kassa.app.fetch(request, bindings as never));
  installFetch();

  const ops = hostOps(kassa);
  const call = async <T>(run: () => Promise<unknown>): Promise<T> => {
    try {
      return (await run()) as T;
    } catch (error) {
      const e = hostError(error);
      throw new ServerApiError(e.message ?? "server error", e.status, e.body);
    }
  };
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    inProcess: true,
    database,
    output: () => output,
    sql: (text, ...params) => call(() => ops.sql(text, asJson(params) as unknown[])),
    api: (name, args = {}) => call(() => ops.api(name, asJson(args) as typeof args)),
    payments: (target, method, args) => call(() => ops.payments(target, method, asJson(args))),
    meter: (action, input) => call(() => ops.meter(action, asJson(input) as typeof input)),
    purchase: (input, now) =>
      call(() => ops.purchase(asJson(input) as typeof input, now ? now.toISOString() : undefined)),
    licenseKeys: (op, args) => call(() => ops.licenseKeys(op, asJson(args) as typeof args)),
    stop() {
      stopped ??= (async () => {
        routes.delete(url);
        kassa.setReady(false);
        await kassa.close();
        if (!options.keepDatabase) await database?.drop();
      })();
      return stopped;
    },
  };
}

/** Throws unless Better Auth, as loaded in this process, sees no test environment. */
export async function assertNoTestEnvironment(): Promise<void> {
  const { isTest } = await loadHost();
  const set = TEST_ENV_VARIABLES.filter((name) => process.env[name] !== undefined);
  if (set.length > 0 || isTest())
    throw new Error(
      `an in-process Kassa server needs ${TEST_ENV_VARIABLES.join(" and ")} unset before Better Auth ` +
        `is imported (Better Auth switches its origin checks off under them); set: ${set.join(", ") || "none, but Better Auth was imported before they were deleted"}. ` +
        "The server project's setup file (test/support/no-test-env.ts) deletes them.",
    );
}

/** A port number for the URL only: nothing listens on it, and no other in-process server uses it. */
function unusedPort(): number {
  for (;;) {
    // Below Linux's ephemeral range (32768 and up), where the ports of real test servers come from.
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!routes.has(`http://localhost:${port}`)) return port;
  }
}

/** The logger's lines (as kit/logger.ts writes them), kept for `output()` instead of printed. */
function capturingLogger(level: LogLevel, write: (line: string) => void): Logger {
  const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
  const emit = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (order[at] < order[level]) return;
    const extra =
      fields && Object.keys(fields).length > 0
        ? ` ${JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message } : v))}`
        : "";
    write(`${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${message}${extra}\n`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

let installed = false;

/**
 * Replaces the process's `fetch` once: a request to an in-process server's origin goes to its
 * app, as Node's fetch would have sent it (its default headers, a Content-Length unless the
 * body is a stream, redirects followed unless `redirect` says otherwise); any other goes to
 * the network.
 */
function installFetch(): void {
  if (installed) return;
  installed = true;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const href = input instanceof Request ? input.url : String(input);
    if (!routes.has(new URL(href).origin)) return networkFetch(input, init);
    const streamed = init?.body instanceof ReadableStream;
    return inProcessFetch(new Request(input, init), streamed);
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function inProcessFetch(first: Request, streamed: boolean): Promise<Response> {
  const mode = first.redirect;
  let request = await asSent(first, streamed);
  for (let hops = 0; ; hops++) {
    const route = routes.get(new URL(request.url).origin);
    if (!route) return networkFetch(request);
    // A followed 307/308 sends the body again (buffered by asSent; a stream cannot be).
    const again = mode === "follow" && !streamed ? request.clone() : request;
    let response: Response;
    try {
      response = await route(request);
    } catch (error) {
      // @hono/node-server answers a throwing app with a bare 500.
      process.stderr.write(`in-process server: ${(error as Error).stack ?? String(error)}\n`);
      response = new Response("Internal Server Error", { status: 500 });
    }
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || !location || mode === "manual") return received(response, request);
    if (mode === "error") throw new TypeError("fetch failed: redirect mode is set to error");
    if (hops >= 20) throw new TypeError("fetch failed: redirect count exceeded");
    await response.body?.cancel();
    const from = new URL(request.url);
    const next = new URL(location, from);
    const toGet =
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && again.method === "POST");
    const headers = new Headers(again.headers);
    for (const name of ["host", "content-length"]) headers.delete(name);
    if (toGet)
      for (const name of ["content-type", "content-encoding", "content-language"]) headers.delete(name);
    if (next.origin !== from.origin) for (const name of ["authorization", "cookie"]) headers.delete(name);
    const method = toGet ? "GET" : again.method;
    const body = method === "GET" || method === "HEAD" ? null : await again.arrayBuffer();
    const init: RequestInit = { method, headers, body, redirect: mode, signal: again.signal };
    if (!routes.has(next.origin)) return networkFetch(next, init);
    request = await asSent(new Request(next, init), false);
  }
}

/** The request with the headers Node's fetch (undici) adds to what it sends. */
async function asSent(request: Request, streamed: boolean): Promise<Request> {
  const headers = new Headers(request.headers);
  const url = new URL(request.url);
  headers.set("host", url.host);
  const defaults: Record<string, string> = {
    accept: "*/*",
    "accept-language": "*",
    "sec-fetch-mode": "cors",
    "user-agent": "node",
    "accept-encoding": "gzip, deflate",
  };
  for (const [name, value] of Object.entries(defaults)) if (!headers.has(name)) headers.set(name, value);
  let body: ArrayBuffer | ReadableStream<Uint8Array> | null = null;
  if (request.body !== null && streamed) {
    body = request.body;
    headers.delete("content-length");
  } else if (request.body !== null) {
    body = await request.arrayBuffer();
    headers.set("content-length", String(body.byteLength));
  } else if (request.method === "POST" || request.method === "PUT") headers.set("content-length", "0");
  return new Request(url, {
    method: request.method,
    headers,
    body,
    redirect: request.redirect,
    signal: request.signal,
    ...(streamed ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** The app's answer as fetch hands it over: a response of its own, with the URL it came from. */
function received(response: Response, request: Request): Response {
  const copy = new Response(response.body, response);
  Object.defineProperty(copy, "url", { value: request.url });
  return copy;
}
