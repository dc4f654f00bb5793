// Runs on PGlite only: the password hasher's gate (auth/password-gate.ts), pure; no database at all.
/**
 * Kassa hashes passwords with Better Auth's own scrypt, one hash a core at a time. The hashes it
 * makes are Better Auth's (an existing user's password still verifies, and one made here verifies
 * with Better Auth's function), and the gate runs its calls at most `slots` at a time, in order,
 * and lets the next one in when a call fails.
 */
import { hashPassword, verifyPassword } from "better-auth/crypto";
import { describe, expect, it } from "vitest";
import { createGate, gatedPasswordHasher } from "../src/auth/password-gate.js";

describe("the gated password hasher", () => {
  it("makes and checks Better Auth's own hashes", async () => {
    const hasher = gatedPasswordHasher(1);
    const made = await hasher.hash("correct horse battery");
    expect(made).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/);
    expect(await verifyPassword({ hash: made, password: "correct horse battery" })).toBe(true);
    const theirs = await hashPassword("staple 42");
    expect(await hasher.verify({ hash: theirs, password: "staple 42" })).toBe(true);
    expect(await hasher.verify({ hash: theirs, password: "staple 43" })).toBe(false);
  });
});

describe("createGate", () => {
  it("runs at most `slots` calls at once, in the order they came, and goes on after a failure", async () => {
    const gate = createGate(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const call = (i: number) =>
      gate(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (i === 3) throw new Error("call 3 fails");
        return i;
      });
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => call(i)));
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : "failed"))).toEqual([
      0,
      1,
      2,
      "failed",
      4,
      5,
      6,
      7,
    ]);
    // Every slot was given back: two more run at once again.
    const again = await Promise.all([call(10), call(11)]);
    expect(again).toEqual([10, 11]);
    expect(running).toBe(0);
  });
});
