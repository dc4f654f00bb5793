// Runs on PGlite only: the request keys' snake_case rule (kit/api/case.ts), pure; no database at all.
/**
 * Every `/v1` JSON body goes through `snakeCaseKeys` before anything reads it: camelCase keys
 * are renamed, the caller's own maps (metadata and the like) keep theirs, the snake_case
 * spelling wins when a body carries both, and a body with nothing to rename comes back as the
 * same value (the edge then keeps the text as it came instead of serializing it again).
 */
import { describe, expect, it } from "vitest";
import { snakeCaseKeys } from "../src/kit/api/case.js";

describe("snakeCaseKeys", () => {
  it("returns the same value when nothing needs renaming, however deep", () => {
    const body = JSON.parse(
      '{"events":[{"name":"a","customer_id":"c","metadata":{"tokensUsed":3}},{"name":"b","external_id":"x"}],"n":[1,[2,{"k":null}]]}',
    );
    expect(snakeCaseKeys(body)).toBe(body);
    expect(snakeCaseKeys([1, "a", null])).toEqual([1, "a", null]);
    for (const scalar of [null, 1, "s", true]) expect(snakeCaseKeys(scalar)).toBe(scalar);
  });

  it("renames camelCase keys at every depth and keeps the caller's maps as sent", () => {
    const body = JSON.parse(
      '{"name":"n","events":[{"name":"a","customer_id":"c"},{"name":"b","customerId":"d","metadata":{"tokensUsed":3,"deepKey":{"innerKey":1}}}],"customerMetadata":{"camelKey":true},"keep":"v"}',
    );
    const before = JSON.stringify(body);
    const out = snakeCaseKeys(body) as Record<string, unknown>;
    expect(out).not.toBe(body);
    expect(out).toEqual({
      name: "n",
      events: [
        { name: "a", customer_id: "c" },
        { name: "b", customer_id: "d", metadata: { tokensUsed: 3, deepKey: { innerKey: 1 } } },
      ],
      customer_metadata: { camelKey: true },
      keep: "v",
    });
    // The keys keep their order, and the unchanged parts are shared, not copied.
    expect(Object.keys(out)).toEqual(["name", "events", "customer_metadata", "keep"]);
    expect((out.events as unknown[])[0]).toBe(body.events[0]);
    // The input is not modified.
    expect(JSON.stringify(body)).toBe(before);
  });

  it("the snake_case spelling wins when a body carries both, in either order", () => {
    expect(snakeCaseKeys({ customerId: "camel", customer_id: "snake" })).toEqual({ customer_id: "snake" });
    expect(snakeCaseKeys({ customer_id: "snake", customerId: "camel" })).toEqual({ customer_id: "snake" });
    expect(snakeCaseKeys({ a: 1, customer_id: "snake", customerId: "camel", b: 2 })).toEqual({
      a: 1,
      customer_id: "snake",
      b: 2,
    });
  });

  it("an own __proto__ key from JSON.parse does not survive, and pollutes nothing", () => {
    const body = JSON.parse('{"name":"n","__proto__":{"polluted":true}}');
    const out = snakeCaseKeys(body) as Record<string, unknown>;
    expect(out).not.toBe(body);
    expect(Object.hasOwn(out, "__proto__")).toBe(false);
    expect(out.name).toBe("n");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
