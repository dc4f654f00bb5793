// Runs on PGlite only: the storages are Node's and Better Auth's; nothing here is SQL.
/**
 * Better Auth's async storages switch their promise hooks off between its calls
 * (src/auth/async-storage.ts). These tests show the storages still carry each call's state
 * wherever Better Auth reads it (across awaits, timers, nested storages, concurrent calls), that
 * they end disabled once no call runs, whatever the call's outcome, and that sign-up, sign-in,
 * organizations and Better Auth's server API still answer as they should with them in place.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QuietStorage } from "../src/auth/async-storage.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser } from "./support/users.js";

const enabled = (storage: AsyncLocalStorage<unknown>) => (storage as unknown as { enabled: boolean }).enabled;

describe("quiet storages", () => {
  it("carry a run's store across awaits, timers and another storage's run, then turn off", async () => {
    const outer = new QuietStorage();
    const inner = new QuietStorage();
    const seen: unknown[] = [];
    const result = await outer.run("request-a", async () => {
      seen.push(outer.getStore());
      await sleep(2);
      const nested = await inner.run("adapter-a", async () => {
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(outer.getStore(), inner.getStore());
        expect(enabled(outer) && enabled(inner)).toBe(true);
        return "nested";
      });
      // The inner run has ended but the outer one has not: both stay on.
      expect(enabled(inner)).toBe(true);
      seen.push(outer.getStore(), inner.getStore());
      return nested;
    });
    await Promise.resolve();
    expect(result).toBe("nested");
    expect(seen).toEqual(["request-a", "request-a", "adapter-a", "request-a", undefined]);
    expect(enabled(outer)).toBe(false);
    expect(enabled(inner)).toBe(false);
    expect(outer.getStore()).toBeUndefined();
  });

  it("keep concurrent runs apart, and stay on until the last one ends", async () => {
    const storage = new QuietStorage();
    const gates = Array.from({ length: 20 }, () => {
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      return { promise, resolve };
    });
    const runs = gates.map((gate, i) =>
      storage.run(`call-${i}`, async () => {
        await gate.promise;
        await sleep(1);
        return storage.getStore();
      }),
    );
    // Release them in reverse; until the first-started one ends the storage must be on.
    for (let i = gates.length - 1; i >= 1; i -= 1) {
      gates[i]!.resolve();
      await runs[i];
      expect(enabled(storage)).toBe(true);
    }
    gates[0]!.resolve();
    expect(await Promise.all(runs)).toEqual(gates.map((_, i) => `call-${i}`));
    await Promise.resolve();
    expect(enabled(storage)).toBe(false);
  });

  it("turn off after a run that rejects or throws, and the caller still sees the error", async () => {
    const storage = new QuietStorage();
    await expect(
      storage.run("failing", async () => {
        await sleep(1);
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    await Promise.resolve();
    expect(enabled(storage)).toBe(false);
    expect(() =>
      storage.run("sync", () => {
        throw new Error("at once");
      }),
    ).toThrow("at once");
    expect(enabled(storage)).toBe(false);
    // A synchronous callback's value comes back as it is; the storage is on again only inside.
    expect(storage.run("sync", () => [storage.getStore(), enabled(storage)])).toEqual(["sync", true]);
    expect(enabled(storage)).toBe(false);
  });
});

describe("Better Auth with quiet storages", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Better Auth's storages, where it keeps them (one object per process, on globalThis). */
  const betterAuthStorages = () => {
    const global = (
      globalThis as unknown as Record<symbol, { context: Record<string, unknown> } | undefined>
    )[Symbol.for("better-auth:global")];
    return ["requestStateAsyncStorage", "adapterAsyncStorage", "endpointContextAsyncStorage"].map(
      (key) => global?.context[key] as AsyncLocalStorage<unknown> | undefined,
    );
  };

  it("signs up, signs in and creates organizations in parallel, and its storages end off", async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => createUser(server)));
    const organizations = await Promise.all(
      users.map((u, i) =>
        u.client.post("/api/auth/organization/create", {
          name: `Quiet ${i}`,
          slug: `quiet-${Date.now().toString(36)}-${i}`,
        }),
      ),
    );
    for (const [i, created] of organizations.entries()) {
      expect(created.status).toBe(200);
      expect(created.body.name).toBe(`Quiet ${i}`);
    }
    // Each session now names its own organization (set by the organization plugin in the call).
    const sessions = await Promise.all(users.map((u) => u.client.get("/api/auth/get-session")));
    for (const [i, session] of sessions.entries()) {
      expect(session.status).toBe(200);
      expect(session.body.user.id).toBe(users[i]!.id);
      expect(session.body.session.activeOrganizationId).toBe(organizations[i]!.body.id);
    }
    const failed = await users[0]!.client.post("/api/auth/sign-in/email", {
      email: users[0]!.email,
      password: "not the password",
    });
    expect(failed.status).toBe(401);

    const storages = betterAuthStorages();
    for (const storage of storages) {
      expect(storage).toBeInstanceOf(AsyncLocalStorage);
      expect(storage?.constructor.name).toMatch(/^QuietStorage/);
      expect(enabled(storage!)).toBe(false);
    }
  });

  it("answers Better Auth's server API with its storages off before and after", async () => {
    const u = await createUser(server);
    const cookie = [...u.client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    for (const storage of betterAuthStorages()) expect(enabled(storage!)).toBe(false);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        server.api<{ user: { id: string } } | null>("getSession", { headers: { cookie } }),
      ),
    );
    for (const answer of answers) expect(answer?.user.id).toBe(u.id);
    await Promise.resolve();
    for (const storage of betterAuthStorages()) expect(enabled(storage!)).toBe(false);
  });
});
