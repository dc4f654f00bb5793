// Runs on both databases: several server processes on one database (node:cluster, WEB_CONCURRENCY) need PostgreSQL; on PGlite, that more than one is refused.
import { readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { TEST_DB } from "./support/database.js";
import { freePort } from "./support/ports.js";
import {
  cleanups,
  MAIN,
  type Running,
  runCleanups,
  runToEnd,
  startMain,
  tempDir,
  testDatabase,
} from "./support/process.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * The server as `npm start` runs it on every core: a primary that migrates and forks, and
 * worker processes sharing the port and the database. Which worker answered is read from the
 * logs (each worker's lines carry `[worker N pid P]`): a sign-up logs its mail in the
 * development mailbox from the process that handled the request.
 */
afterAll(runCleanups);

/** Waits until the server's output matches (the processes are the test's subject: no fixed sleeps). */
async function waitForOutput(server: Running, pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
  for (let i = 0; i < 1200; i++) {
    const match = server.output().slice(from).match(pattern);
    if (match) return match;
    if (server.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${pattern} in the output:\n${server.output()}`);
}

/** The worker pids whose lines after `from` log a development mailbox mail. */
function mailingPids(server: Running, from: number): Set<number> {
  const pids = [
    ...server
      .output()
      .slice(from)
      .matchAll(/\[worker \d+ pid (\d+)\] dev mailbox:/g),
  ];
  return new Set(pids.map((m) => Number(m[1])));
}

/**
 * Signs up on a connection of its own (`agent: false`), so the cluster's primary hands it to the
 * next worker in turn: `fetch` would reuse a kept-alive connection to whichever worker answered
 * an earlier test, and one worker could then answer them all.
 */
function signUpOnNewConnection(url: string, n: number): Promise<number> {
  const body = JSON.stringify({
    email: `cluster-${Date.now().toString(36)}-${n}@example.test`,
    password: "correct horse battery",
    name: `cluster ${n}`,
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/api/auth/sign-up/email`,
      {
        method: "POST",
        agent: false,
        headers: {
          origin: url,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let signUps = 0;

/**
 * Signs up in rounds of four new connections until the mails logged after `from` come from
 * `expected` workers (at most ten rounds), and returns the pids that logged them.
 */
async function signUpUntilAnswered(server: Running, from: number, expected: number): Promise<number[]> {
  for (let round = 0; round < 10; round++) {
    const statuses = await Promise.all(
      Array.from({ length: 4 }, () => signUpOnNewConnection(server.url, ++signUps)),
    );
    expect(statuses).toEqual([200, 200, 200, 200]);
    await waitForOutput(server, new RegExp(`(dev mailbox:[\\s\\S]*){${4 * (round + 1)}}`), from);
    if (mailingPids(server, from).size >= expected) break;
  }
  return [...mailingPids(server, from)].sort();
}

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("WEB_CONCURRENCY", () => {
  it("defaults to every core on PostgreSQL and to one process on PGlite", () => {
    const url = "postgresql://kassa@127.0.0.1/kassa";
    expect(loadConfig({ DATABASE_URL: url }).webConcurrency).toBe(os.availableParallelism());
    expect(loadConfig({ DATABASE_URL: url, WEB_CONCURRENCY: "3" }).webConcurrency).toBe(3);
    expect(loadConfig({}).webConcurrency).toBe(1);
    expect(loadConfig({ WEB_CONCURRENCY: "1" }).webConcurrency).toBe(1);
  });
});

if (TEST_DB === "postgres") {
  describe("WEB_CONCURRENCY=2 on PostgreSQL", () => {
    let server: Running;
    let pool: pg.Pool;
    let pids: number[] = [];
    const sql = async <T = Record<string, unknown>>(text: string, ...params: unknown[]) =>
      (await pool.query(text, params)).rows as T[];
    const target = () => ({ url: server.url, sql });

    it("a primary migrates a fresh database once and starts two workers on one port", async () => {
      const db = await testDatabase({ empty: true });
      pool = new pg.Pool({ connectionString: db.env.DATABASE_URL, max: 4 });
      // The database is dropped at the end with its connections: that is no failure of the test.
      pool.on("error", () => {});
      cleanups.push(() => pool.end().catch(() => {}));
      // Many sign-ups from one address within seconds: Better Auth's limits would refuse them.
      // A tunable of the operator's own: the workers keep it and get huge pages beside it.
      server = await startMain({
        ...db.env,
        WEB_CONCURRENCY: "2",
        RATE_LIMIT: "off",
        GLIBC_TUNABLES: "glibc.malloc.arena_max=8",
      });
      const started = await waitForOutput(server, /with 2 worker processes \(pids (\d+), (\d+)\)/);
      pids = [Number(started[1]), Number(started[2])];
      expect(new Set(pids).size).toBe(2);
      expect(pids).not.toContain(server.child.pid);
      const output = server.output();
      expect(output).toContain("Kassa starting 2 worker processes (WEB_CONCURRENCY)");
      // The primary applied the migrations before forking; the workers found nothing to do.
      expect(output.match(/applied migration 0001_mail/g)).toHaveLength(1);
      expect(output).not.toMatch(/\[worker \d+ pid \d+\] applied migration/);
      // The workers hash the passwords: their allocator was started on huge pages
      // (kit/huge-pages.ts), the primary's environment left as it was.
      // Read from the process's first environment (/proc/PID/environ), where glibc, parsing the
      // variable at start, has put a NUL in place of each ':'.
      const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, "utf8");
      for (const pid of pids)
        expect(environ(pid)).toContain("\0GLIBC_TUNABLES=glibc.malloc.arena_max=8\0glibc.malloc.hugetlb=1\0");
      expect(environ(server.child.pid as number)).toContain("\0GLIBC_TUNABLES=glibc.malloc.arena_max=8\0");
      expect(environ(server.child.pid as number)).not.toContain(
        "\0GLIBC_TUNABLES=glibc.malloc.arena_max=8\0glibc.malloc.hugetlb",
      );
    });

    it("requests are answered by both workers", async () => {
      const from = server.output().length;
      expect(await signUpUntilAnswered(server, from, 2)).toEqual([...pids].sort());
    });

    it("parallel purchases through the checkout flow make one order per checkout and one confirmation mail each", async () => {
      const merchant = await createMerchant(target(), "Cluster shop");
      const token = await createToken(merchant, ["products:write", "checkouts:write"]);
      const product = await call(server, token, "POST", "/v1/products/", {
        name: "Seat",
        prices: [{ amount_type: "fixed", price_amount: 1500 }],
      });
      expect(product.status).toBe(201);
      const buyers = Array.from({ length: 8 }, (_, i) => `cluster-buyer-${i}@example.test`);
      const confirmed = await Promise.all(
        buyers.map(async (email) => {
          const checkout = await call(server, token, "POST", "/v1/checkouts/", {
            products: [product.body.id],
            customer_email: email,
          });
          expect(checkout.status).toBe(201);
          const card = () =>
            call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
              card_number: "4242424242424242",
              exp_month: 12,
              exp_year: 2040,
              cvc: "123",
            }).then((r) => r.body.id as string);
          const secret = checkout.body.client_secret as string;
          const confirm = (token: string) =>
            call(server, undefined, "POST", `/v1/checkouts/client/${secret}/confirm`, {
              confirmation_token_id: token,
              customer_billing_address: { country: "FR" },
            });
          // The buyer presses twice: both confirms race, on separate connections (so, in turn,
          // on both processes); one pays, the other is refused.
          const [first, second] = await Promise.all([card(), card()]);
          const results = await Promise.all([confirm(first), confirm(second)]);
          const statuses = results.map((r) => r.status).sort();
          expect(
            statuses.filter((s) => s === 200),
            JSON.stringify(results.map((r) => r.body)),
          ).toHaveLength(1);
          expect(statuses.filter((s) => s !== 200).every((s) => s === 403 || s === 409)).toBe(true);
          return checkout.body.id as string;
        }),
      );
      const orders = await sql<{ checkout_id: string; n: number }>(
        "select checkout_id, count(*)::int as n from kassa_order where checkout_id = any($1) group by checkout_id",
        confirmed,
      );
      expect(orders.map((o) => o.n)).toEqual(confirmed.map(() => 1));
      const charges = await sql<{ n: number }>("select count(*)::int as n from kassa_sandbox_charge");
      expect(charges[0]?.n).toBe(buyers.length);

      // The confirmation mail is a job: whichever worker claims it sends it, once.
      let mails: { to_address: string; n: number }[] = [];
      for (let i = 0; i < 600 && mails.length < buyers.length; i++) {
        mails = await sql<{ to_address: string; n: number }>(
          "select to_address, count(*)::int as n from kassa_mail where kind = 'order-confirmation' group by to_address",
        );
        if (mails.length < buyers.length) await new Promise((r) => setTimeout(r, 100));
      }
      expect(mails.map((m) => m.to_address).sort()).toEqual([...buyers].sort());
      expect(mails.every((m) => m.n === 1)).toBe(true);
    });

    it("a worker that dies is replaced, and requests are answered meanwhile and after", async () => {
      const [victim, survivor] = pids as [number, number];
      const from = server.output().length;
      process.kill(victim, "SIGKILL");
      await waitForOutput(
        server,
        new RegExp(`pid ${victim}\\) exited unexpectedly \\(signal SIGKILL\\)`),
        from,
      );
      expect(alive(victim)).toBe(false);
      expect((await fetch(`${server.url}/api/auth/ok`)).status).toBe(200);

      const restarted = await waitForOutput(server, /worker \d+ \(pid (\d+)\) listening/, from);
      const replacement = Number(restarted[1]);
      expect([victim, survivor]).not.toContain(replacement);
      const after = server.output().length;
      expect(await signUpUntilAnswered(server, after, 2)).toEqual([survivor, replacement].sort());
      pids = [survivor, replacement];
    });

    it("SIGTERM closes every worker gracefully and the primary exits 0", async () => {
      const from = server.output().length;
      expect(await server.stop()).toBe(0);
      const output = server.output().slice(from);
      expect(output).toContain("SIGTERM received: closing 2 worker processes");
      for (const pid of pids) expect(output).toContain(`pid ${pid}] Kassa stopped`);
      expect(output).toContain("Kassa stopped (all workers closed)");
      expect(output).not.toMatch(/exited unexpectedly|did not close in time/);
      for (const pid of pids) expect(alive(pid)).toBe(false);
    });
  });
} else {
  describe("PGlite is one process", () => {
    it("refuses WEB_CONCURRENCY above 1 at start, naming the variable", async () => {
      const { code, output } = await runToEnd(MAIN, {
        DATA_DIR: tempDir("kassa-cluster-"),
        PORT: String(await freePort()),
        WEB_CONCURRENCY: "2",
      });
      expect(code).toBe(1);
      expect(output).toContain("Kassa cannot start: WEB_CONCURRENCY");
      expect(output).toContain("DATABASE_URL");
    });

    it("starts as one process and says so", async () => {
      const db = await testDatabase();
      const server = await startMain(db.env);
      expect(server.output()).toMatch(/one process: the embedded database \(PGlite\)/);
      expect(server.output()).not.toContain("worker processes");
      expect(await server.stop()).toBe(0);
    });
  });
}
