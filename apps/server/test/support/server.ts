import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PurchaseInput } from "../../src/modules/orders/index.js";
import { createTestDatabase, TEST_NODE_FLAGS, type TestDatabase } from "./database.js";
import type { MeterAction, MeterActionInput } from "./host-ops.js";
import { freePort } from "./ports.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * The bundled host the global setup built (build-host.ts), or the source through tsx. Read at
 * each start, not when this module loads: the global setup imports this module before
 * build-host.ts has run, and its template server then went through tsx's loader hooks.
 */
function host(): { file: string; execArgv: string[] } {
  const bundle = process.env.KASSA_TEST_HOST;
  return bundle
    ? { file: bundle, execArgv: ["--enable-source-maps", ...TEST_NODE_FLAGS] }
    : { file: path.join(here, "host.ts"), execArgv: ["--import", "tsx", ...TEST_NODE_FLAGS] };
}

/** Variables of the test runner that must never reach the server under test. */
const SCRUBBED = ["NODE_ENV", "TEST", "VITEST", "VITEST_MODE", "VITEST_POOL_ID", "VITEST_WORKER_ID", "MODE"];

/** A server under test, in a child process or in the test's own (`inProcess`). */
export interface TestServer {
  url: string;
  port: number;
  /** True for a server in the test's own process (in-process.ts): no child, no socket. */
  inProcess: boolean;
  /** Everything the server printed, for assertions and for debugging a failure. */
  output(): string;
  /** Runs SQL in the server's database ($1..$n parameters). */
  sql<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T[]>;
  /** Calls Better Auth's server-side API (`auth.api[name]`), e.g. server-only endpoints. */
  api<T = unknown>(
    name: string,
    args?: { body?: unknown; query?: unknown; headers?: Record<string, string> },
  ): Promise<T>;
  /**
   * Calls the server's payment processor (`processor`) or the default tax calculator (`tax`)
   * in the server process, as checkouts and renewals do; a refused request rejects with a
   * ServerApiError whose `status` is the ProcessorRequestError code.
   */
  payments<T = unknown>(target: "processor" | "tax", method: string, args: unknown): Promise<T>;
  /**
   * Records a paid purchase in the server process with `recordPurchase` (modules/orders), as
   * a confirmed checkout does, optionally at a given time; answers the new ids.
   */
  purchase(input: PurchaseInput, now?: Date): Promise<{ orderId: string; subscriptionId: string | null }>;
  /**
   * Calls the license keys module's grant engine interface in the server process
   * (`grantLicenseKey` / `revokeLicenseKey`, in a transaction of their own; `now` an ISO string).
   */
  licenseKeys<T = unknown>(op: "grant" | "revoke", args: Record<string, unknown>): Promise<T>;
  /** Credits a customer's meter or closes its period in the server process (customer-meters' exports). */
  meter<T = unknown>(action: MeterAction, input: MeterActionInput): Promise<T>;
  /** Graceful stop (SIGTERM) and database cleanup. */
  stop(): Promise<void>;
}

/** A server in a child process: what tests about processes, signals and sockets need. */
export interface ProcessTestServer extends TestServer {
  child: ChildProcess;
}

export interface StartTestServerOptions {
  env?: Record<string, string>;
  /** Cheap password hashing (default true); suites about passwords use the real scrypt. */
  fastHash?: boolean;
  /** Copy the migrated PGlite template (default true). */
  useTemplate?: boolean;
  /** Listen on this port (e.g. one registered beforehand at an OAuth provider); default a free one. */
  port?: number;
  /** Keep the database after stop (for restart tests); call `dropDatabase` yourself. */
  keepDatabase?: boolean;
  database?: TestDatabase;
  /** Variables to leave unset (e.g. RATE_LIMIT, to run on its default). */
  unset?: string[];
  /**
   * How long the start may take before the test fails, in seconds: KASSA_TEST_START_SECONDS or
   * 60 by default. The global setup's template server, which creates and migrates a database
   * from nothing while the other lanes of `.ci/run` start theirs, asks for more.
   */
  startSeconds?: number;
  /**
   * Run the server in this process (in-process.ts): the same app, answering `fetch` to its URL
   * without a socket, with Better Auth's origin checks on. For suites that only speak HTTP to
   * it and use sql/api/payments/purchase; KASSA_TEST_IN_PROCESS=0 runs them on child
   * processes instead (to compare, or to rule the harness out).
   */
  inProcess?: boolean;
}

type WithDatabase = { database: TestDatabase | undefined };

export class ServerApiError extends Error {
  constructor(
    message: string,
    readonly status: unknown,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export async function startTestServer(
  options: StartTestServerOptions & { inProcess: true },
): Promise<TestServer & WithDatabase>;
export async function startTestServer(
  options?: StartTestServerOptions,
  attempt?: number,
): Promise<ProcessTestServer & WithDatabase>;
export async function startTestServer(
  options: StartTestServerOptions = {},
  attempt = 1,
): Promise<TestServer & WithDatabase> {
  if (options.inProcess && process.env.KASSA_TEST_IN_PROCESS !== "0") {
    // Loaded only here: it brings the whole server into the test's process.
    const { startInProcessServer } = await import("./in-process.js");
    return startInProcessServer(options);
  }
  return startProcessServer(options, attempt);
}

async function startProcessServer(
  options: StartTestServerOptions,
  attempt: number,
): Promise<ProcessTestServer & WithDatabase> {
  const port = options.port ?? (await freePort());
  const database =
    options.database ??
    (options.useTemplate === false && options.env?.DATA_DIR ? undefined : await createTestDatabase());
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.includes(k)) env[k] = v;
  Object.assign(
    env,
    {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `http://localhost:${port}`,
      RATE_LIMIT: "off",
      LOG_LEVEL: "warn",
      KASSA_TEST_FAST_HASH: options.fastHash === false ? "0" : "1",
    },
    database?.env ?? {},
    options.env ?? {},
  );
  for (const name of options.unset ?? []) delete env[name];

  let output = "";
  const { file, execArgv } = host();
  const child = fork(file, [], {
    env,
    execArgv,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });

  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  child.on(
    "message",
    (m: {
      id?: number;
      ok?: boolean;
      value?: unknown;
      error?: { message: string; status: unknown; body: unknown };
    }) => {
      if (m.id === undefined) return;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new ServerApiError(m.error?.message ?? "server error", m.error?.status, m.error?.body));
    },
  );

  // 60 s, or KASSA_TEST_START_SECONDS on a machine so loaded that migrating the template takes
  // longer; the caller's `startSeconds` when it is longer still.
  const startSeconds = Math.max(
    Number(process.env.KASSA_TEST_START_SECONDS) || 60,
    options.startSeconds ?? 0,
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`test server did not start in ${startSeconds} s:\n${output}`)),
      startSeconds * 1000,
    );
    child.on("message", (m: { ready?: boolean }) => {
      if (m.ready) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`test server exited with code ${code}:\n${output}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    // The port was only free a moment ago: a server of the other worker may have taken it
    // while this one started. Try another one, on the same database.
    if (options.port === undefined && output.includes("EADDRINUSE") && attempt < 3) {
      return startProcessServer({ ...options, ...(database ? { database } : {}) }, attempt + 1);
    }
    // A server that did not start in time is still running: it must not outlive the test run.
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    throw error;
  }

  const call = <T>(message: Record<string, unknown>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, ...message });
    });

  let stopped: Promise<void> | undefined;
  return {
    url: `http://localhost:${port}`,
    port,
    inProcess: false,
    child,
    database,
    output: () => output,
    sql: (text, ...params) => call({ op: "sql", text, params }),
    api: (name, args = {}) => call({ op: "api", name, args }),
    payments: (target, method, args) => call({ op: "payments", target, method, args }),
    purchase: (input, now) => call({ op: "purchase", input, ...(now ? { now: now.toISOString() } : {}) }),
    licenseKeys: (licenseKeyOp, args) => call({ op: "licenseKeys", licenseKeyOp, args }),
    meter: (action, input) => call({ op: "meter", action, input }),
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once("exit", r));
          child.kill("SIGTERM");
          await exited;
        }
        if (!options.keepDatabase) await database?.drop();
      })();
      return stopped;
    },
  };
}
