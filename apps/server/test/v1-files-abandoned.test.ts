// Runs on both databases: two processes sweeping abandoned uploads on one database discard each once.
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { systemClock } from "../src/kit/clock.js";
import { createLogger } from "../src/kit/logger.js";
import type { FileStorage } from "../src/modules/files/index.js";
import { discardAbandonedUploads, diskStorage } from "../src/modules/files/index.js";
import type { Json } from "./support/client.js";
import { TEST_DB } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * Uploads never completed: a process with the job worker discards them (file deleted, parts
 * removed from disk) once they are still incomplete 24 hours after their upload URLs expired
 * (FILES_UPLOAD_URL_TTL, an hour by default), at start and every hour after.
 */

const servers: TestServer[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const c of cleanups) await c();
});

const F = "/v1/files/";
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("base64");

describe("abandoned uploads", () => {
  it("are discarded 25 hours after they were declared, with their parts; completed and younger ones stay", {
    timeout: 90_000,
  }, async () => {
    const first = await startTestServer({ keepDatabase: true });
    servers.push(first);
    const database = first.database;
    if (!database) throw new Error("the test server has no database");
    cleanups.push(() => database.drop());
    const acme = await createMerchant(first, "Acme");
    const token = await createToken(acme, ["files:write", "products:write"]);

    /** Declares a two-part downloadable and uploads its first part only (or both, and completes it). */
    const declare = async (complete: boolean) => {
      const bytes = randomBytes(4096);
      const halves = [bytes.subarray(0, 2048), bytes.subarray(2048)];
      const created = await call(first, token, "POST", F, {
        name: "archive.zip",
        mime_type: "application/zip",
        size: bytes.length,
        checksum_sha256_base64: sha256(bytes),
        service: "downloadable",
        upload: {
          parts: halves.map((half, i) => ({
            number: i + 1,
            chunk_start: i * 2048,
            chunk_end: (i + 1) * 2048,
            checksum_sha256_base64: sha256(half),
          })),
        },
      });
      expect(created.status).toBe(201);
      const parts = created.body.upload.parts as Array<{ url: string; headers: Record<string, string> }>;
      const etags: Json[] = [];
      for (const [i, part] of parts.entries()) {
        if (i > 0 && !complete) break;
        const res = await fetch(part.url, {
          method: "PUT",
          body: new Uint8Array(halves[i] ?? Buffer.alloc(0)),
          headers: part.headers,
        });
        expect(res.status).toBe(200);
        etags.push({
          number: i + 1,
          checksum_etag: res.headers.get("etag"),
          checksum_sha256_base64: sha256(halves[i]!),
        });
      }
      if (complete) {
        const done = await call(first, token, "POST", `${F}${created.body.id}/uploaded`, {
          id: created.body.upload.id,
          path: created.body.upload.path,
          parts: etags,
        });
        expect(done.status).toBe(200);
      }
      return created.body as { id: string; upload: { id: string; path: string } };
    };
    const age = (id: string, hours: number) =>
      first.sql(
        `update kassa_file set created_at = now() - make_interval(mins => $2) where id = $1`,
        id,
        hours * 60,
      );
    const partsDir = (id: string) => path.join(database.dataDir, "files", "uploads", id);

    const abandoned = await declare(false);
    const young = await declare(false);
    const completed = await declare(true);
    const fresh = await declare(false);
    await age(abandoned.id, 25.5);
    // Declared 24.5 hours ago: its URLs expired 23.5 hours ago, within the 24 hours of grace.
    await age(young.id, 24.5);
    await age(completed.id, 48);
    expect(existsSync(partsDir(abandoned.id))).toBe(true);

    // A process with the job worker sweeps at start (and hourly after).
    await first.stop();
    servers.length = 0;
    const second = await startTestServer({ database, keepDatabase: true, env: { LOG_LEVEL: "info" } });
    servers.push(second);

    const listed = async () => {
      const res = await call(second, token, "GET", `${F}?limit=100`);
      expect(res.status).toBe(200);
      return res.body.items as Array<{ id: string; is_uploaded: boolean }>;
    };
    // The sweep logs its count once the parts are removed: wait for that line.
    const line = /discarded abandoned uploads \{"count":1\}/;
    for (let i = 0; i < 200 && !line.test(second.output()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(second.output()).toMatch(line);

    const items = await listed();
    expect(items.map((f) => f.id).sort()).toEqual([young.id, completed.id, fresh.id].sort());
    expect(items.find((f) => f.id === completed.id)?.is_uploaded).toBe(true);
    expect(items.find((f) => f.id === young.id)?.is_uploaded).toBe(false);
    const [row] = await second.sql<{ deleted_at: Date | null }>(
      "select deleted_at from kassa_file where id = $1",
      abandoned.id,
    );
    expect(row?.deleted_at).not.toBeNull();
    expect(existsSync(partsDir(abandoned.id))).toBe(false);
    expect(existsSync(partsDir(young.id))).toBe(true);
    expect(existsSync(partsDir(fresh.id))).toBe(true);

    // The discarded upload cannot be completed any more.
    const late = await call(second, token, "POST", `${F}${abandoned.id}/uploaded`, {
      id: abandoned.upload.id,
      path: abandoned.upload.path,
      parts: [{ number: 1, checksum_etag: '"0"', checksum_sha256_base64: null }],
    });
    expect(late.status).toBe(404);
  });
});

// Several processes share a PostgreSQL database (one process owns a PGlite data dir): each
// sweeps, and an upload must be discarded, and its parts removed, by exactly one of them.
if (TEST_DB === "postgres")
  describe("abandoned uploads, two processes sweeping at once", () => {
    it("discard each upload once between them", async () => {
      // No sweeper in the server itself: the two below are the only ones.
      const server = await startTestServer({ keepDatabase: true, env: { JOB_WORKER: "off" } });
      servers.push(server);
      const database = server.database;
      if (!database) throw new Error("the test server has no database");
      cleanups.push(() => database.drop());
      const acme = await createMerchant(server, "Acme");
      const token = await createToken(acme, ["files:write"]);
      const bytes = randomBytes(64);
      const ids = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const res = await call(server, token, "POST", F, {
            name: `part-${i}.bin`,
            mime_type: "application/octet-stream",
            size: bytes.length,
            service: "downloadable",
            upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: bytes.length }] },
          });
          expect(res.status).toBe(201);
          return res.body.id as string;
        }),
      );
      await server.sql("update kassa_file set created_at = now() - interval '26 hours'");

      // The server's own disk storage, with each removal it is asked for recorded.
      const disk = diskStorage(path.join(database.dataDir, "files"));
      const removed: string[] = [];
      const storage: FileStorage = {
        ...disk,
        async remove(organizationId, fileId) {
          expect(organizationId).toBe(acme.organizationId);
          removed.push(fileId);
          await disk.remove(organizationId, fileId);
        },
      };
      const processes = await Promise.all(
        [1, 2].map(() => openDatabase(loadConfig({ ...database.env, LOG_LEVEL: "error" }))),
      );
      try {
        const counts = await Promise.all(
          processes.map((p) =>
            discardAbandonedUploads({
              db: p.db,
              clock: systemClock,
              logger: createLogger("error"),
              storage,
              uploadUrlTtlSeconds: 3600,
            }),
          ),
        );
        expect(counts[0]! + counts[1]!).toBe(30);
        expect([...removed].sort()).toEqual([...ids].sort());
        const left = await server.sql<{ n: string }>(
          "select count(*) as n from kassa_file where deleted_at is null",
        );
        expect(Number(left[0]?.n)).toBe(0);
      } finally {
        await Promise.all(processes.map((p) => p.close()));
      }
    });
  });
