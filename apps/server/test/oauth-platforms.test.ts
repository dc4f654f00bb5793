// Runs on PGlite only: calls to a local stand-in for GitHub's API; no database at all.
/**
 * The GitHub and Discord clients read what the platforms answer within a bound: an answer
 * larger than that is refused with a clear error, unread, instead of being held in memory.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { githubApi, MAX_ANSWER_BYTES, PlatformError } from "../src/modules/oauth-accounts/platforms.js";

let server: Server;
let apiUrl: string;
/** Bytes of padding in the invitations list GitHub answers. */
let padding = 0;
const calls: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`);
    if (req.method === "GET" && req.url?.startsWith("/repos/o/r/invitations")) {
      res.writeHead(200, { "content-type": "application/json" });
      // Sent in pieces, as a large answer arrives.
      const body = JSON.stringify([{ id: 7, invitee: { id: 42 }, note: "x".repeat(padding) }]);
      for (let i = 0; i < body.length; i += 64 * 1024) res.write(body.slice(i, i + 64 * 1024));
      res.end();
      return;
    }
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const api = () => githubApi({ clientId: "c", clientSecret: "s", token: "t", apiUrl, oauthUrl: apiUrl });

it("reads an answer of ordinary size and acts on it: the pending invitation is taken back", async () => {
  padding = 1000;
  calls.length = 0;
  await api().remove("o", "r", "42", "ada");
  expect(calls).toEqual(["GET /repos/o/r/invitations?per_page=100", "DELETE /repos/o/r/invitations/7"]);
});

it("refuses an answer larger than the bound, naming the call, and acts on nothing", async () => {
  padding = MAX_ANSWER_BYTES + 1;
  calls.length = 0;
  const error = await api()
    .remove("o", "r", "42", "ada")
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(PlatformError);
  expect((error as Error).message).toBe(
    `GitHub answered 200 to removing ada from o/r: the answer is larger than ${MAX_ANSWER_BYTES} bytes`,
  );
  expect(calls).toEqual(["GET /repos/o/r/invitations?per_page=100"]);
});
