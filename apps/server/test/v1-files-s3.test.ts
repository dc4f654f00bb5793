// Runs on PostgreSQL only: files in an S3-compatible bucket (a local fake); nothing engine-specific.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { Polar } from "@polar-sh/sdk";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Files in an S3-compatible bucket (S3_* variables): the same flow as on disk, against a real
 * S3 protocol server (s3rver) in this process.
 */

const BUCKET = "kassa-files";
const KEYS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
let s3rver: S3rver;
let s3Dir: string;
let client: S3Client;
let server: TestServer;
let acme: Merchant;
let token: string;
let polar: Polar;

beforeAll(async () => {
  s3Dir = mkdtempSync(path.join(os.tmpdir(), "kassa-s3-"));
  s3rver = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port } = await s3rver.run();
  const endpoint = `http://127.0.0.1:${port}`;
  client = new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials: KEYS });
  server = await startTestServer({
    inProcess: true,
    env: {
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: "1",
      S3_ACCESS_KEY_ID: KEYS.accessKeyId,
      S3_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
      S3_PREFIX: "kassa/",
    },
  });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, ["files:write", "products:write"]);
  polar = sdk(server, token);
});
afterAll(async () => {
  await server?.stop();
  await s3rver?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("base64");

async function keys(prefix: string) {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key);
}

describe("files in an S3-compatible bucket", () => {
  it("parts go to the bucket, completion puts the checked file there, media is served from it, delete removes it", async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(3000)]);
    const created = await polar.files.create({
      name: "photo.jpg",
      mimeType: "image/jpeg",
      size: bytes.length,
      checksumSha256Base64: sha256(bytes),
      upload: {
        parts: [
          { number: 1, chunkStart: 0, chunkEnd: 2000, checksumSha256Base64: sha256(bytes.subarray(0, 2000)) },
          { number: 2, chunkStart: 2000, chunkEnd: bytes.length },
        ],
      },
      service: "product_media",
    });
    const parts = [];
    for (const part of created.upload.parts) {
      const res = await fetch(part.url, {
        method: "PUT",
        body: new Uint8Array(bytes.subarray(part.chunkStart, part.chunkEnd)),
      });
      expect(res.status).toBe(200);
      parts.push({
        number: part.number,
        checksumEtag: res.headers.get("etag") ?? "",
        checksumSha256Base64: null,
      });
    }
    expect(await keys(`kassa/uploads/${created.id}/`)).toEqual([
      `kassa/uploads/${created.id}/1`,
      `kassa/uploads/${created.id}/2`,
    ]);

    // A bad ETag is refused before anything is joined.
    const refused = await call(server, token, "POST", `/v1/files/${created.id}/uploaded`, {
      id: created.upload.id,
      path: created.upload.path,
      parts: [{ number: 1, checksum_etag: "bad", checksum_sha256_base64: null }, parts[1]],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(["body", "parts", 0, "checksum_etag"]);

    const done = await polar.files.uploaded({
      id: created.id,
      fileUploadCompleted: { id: created.upload.id, path: created.upload.path, parts },
    });
    expect(done).toMatchObject({ isUploaded: true, checksumSha256Base64: sha256(bytes) });
    const key = `kassa/objects/${acme.organizationId}/${created.id}`;
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(Buffer.from(await (object.Body?.transformToByteArray() ?? new Uint8Array())).equals(bytes)).toBe(
      true,
    );
    expect(await keys(`kassa/uploads/${created.id}/`)).toEqual([]);

    const media = await fetch(`${server.url}/storage/media/${created.id}`);
    expect(media.status).toBe(200);
    expect(media.headers.get("content-type")).toBe("image/jpeg");
    expect(media.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await media.arrayBuffer()).equals(bytes)).toBe(true);

    const product = await polar.products.create({
      name: "Photo print",
      prices: [{ amountType: "free" }],
      medias: [created.id],
    });
    expect(product.medias[0]?.publicUrl).toBe(`${server.url}/storage/media/${created.id}`);

    await polar.files.delete({ id: created.id });
    await expect(client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toThrow();
    expect((await fetch(`${server.url}/storage/media/${created.id}`)).status).toBe(404);
  });

  it("a part with a bad checksum never reaches the bucket", async () => {
    const bytes = randomBytes(100);
    const created = await polar.files.create({
      name: "a.bin",
      mimeType: "application/octet-stream",
      size: 100,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 100, checksumSha256Base64: sha256(bytes) }] },
      service: "downloadable",
    });
    const res = await fetch(created.upload.parts[0]?.url ?? "", {
      method: "PUT",
      body: new Uint8Array(randomBytes(100)),
    });
    expect(res.status).toBe(400);
    expect(await keys(`kassa/uploads/${created.id}/`)).toEqual([]);
  });

  it("a bucket that accepts connections and never answers fails the upload after S3_TIMEOUT_MS instead of holding it", async () => {
    // A TCP server that takes the connection and the request, and says nothing back.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("data", () => {});
      socket.on("error", () => {});
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    const stalled = await startTestServer({
      inProcess: true,
      env: {
        S3_BUCKET: BUCKET,
        S3_ENDPOINT: `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`,
        S3_FORCE_PATH_STYLE: "1",
        S3_ACCESS_KEY_ID: KEYS.accessKeyId,
        S3_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
        S3_TIMEOUT_MS: "1000",
      },
    });
    try {
      const merchant = await createMerchant(stalled, "Stalled");
      const stalledPolar = sdk(stalled, await createToken(merchant, ["files:write"]));
      const created = await stalledPolar.files.create({
        name: "s.bin",
        mimeType: "application/octet-stream",
        size: 100,
        upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 100 }] },
        service: "downloadable",
      });
      const res = await fetch(created.upload.parts[0]?.url ?? "", {
        method: "PUT",
        body: new Uint8Array(randomBytes(100)),
      });
      expect(res.status).toBe(500);
      expect(sockets.size).toBeGreaterThan(0);
      expect(stalled.output()).toContain("storage request failed");
    } finally {
      await stalled.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
