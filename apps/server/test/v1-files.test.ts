// Runs on both databases: completions of one upload sent at the same time (row locks).
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { Polar } from "@polar-sh/sdk";
import type { FileUpload } from "@polar-sh/sdk/models/components/fileupload.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUrlSigner } from "../src/modules/files/signing.js";
import type { Json } from "./support/client.js";
import type { TestDatabase } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** /v1/files/: Polar's upload flow to URLs Kassa signs, limits per service, media on products. */

let server: TestServer & { database: TestDatabase | undefined };
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;
let polar: Polar;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["files:write", "products:write"]);
  otherToken = await createToken(other, ["files:write", "products:write"]);
  polar = sdk(server, token);
});
afterAll(() => server?.stop());

const F = "/v1/files/";
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("base64");
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (size = 200) => Buffer.concat([PNG_SIGNATURE, randomBytes(size - PNG_SIGNATURE.length)]);

function partsOf(bytes: Buffer, partSize: number, withChecksums = true) {
  const parts = [];
  for (let start = 0, n = 1; start < bytes.length; start += partSize, n += 1) {
    const end = Math.min(start + partSize, bytes.length);
    parts.push({
      number: n,
      chunkStart: start,
      chunkEnd: end,
      ...(withChecksums ? { checksumSha256Base64: sha256(bytes.subarray(start, end)) } : {}),
    });
  }
  return parts;
}

function put(url: string, body: Buffer, headers: Record<string, string> = {}) {
  return fetch(url, { method: "PUT", body: new Uint8Array(body), headers });
}

/** The whole flow through the SDK: create, PUT every part to its URL, complete. */
async function upload(
  client: Polar,
  opts: {
    service: "downloadable" | "product_media" | "organization_avatar";
    bytes: Buffer;
    mimeType: string;
    partSize?: number;
    name?: string;
  },
) {
  const created = await client.files.create({
    name: opts.name ?? "file.bin",
    mimeType: opts.mimeType,
    size: opts.bytes.length,
    checksumSha256Base64: sha256(opts.bytes),
    upload: { parts: partsOf(opts.bytes, opts.partSize ?? opts.bytes.length) },
    service: opts.service,
  });
  const parts = [];
  for (const part of created.upload.parts) {
    const res = await put(part.url, opts.bytes.subarray(part.chunkStart, part.chunkEnd), part.headers);
    expect(res.status).toBe(200);
    parts.push({
      number: part.number,
      checksumEtag: res.headers.get("etag") ?? "",
      checksumSha256Base64: part.checksumSha256Base64 ?? null,
    });
  }
  const done = await client.files.uploaded({
    id: created.id,
    fileUploadCompleted: { id: created.upload.id, path: created.upload.path, parts },
  });
  return { created, done };
}

function dataDir() {
  const dir = server.database?.dataDir;
  if (!dir) throw new Error("the test server has no data dir");
  return dir;
}

/** The signer the server uses (its secret is generated into the data dir outside production). */
function serverSigner() {
  return createUrlSigner(readFileSync(path.join(dataDir(), "auth-secret"), "utf8").trim());
}

async function rawCreate(body: Record<string, unknown>, as = token) {
  return call(server, as, "POST", F, body);
}

describe("upload flow", () => {
  it("a downloadable in three parts through the SDK: signed URLs, ETags, checksums, stored on disk", async () => {
    const bytes = randomBytes(2500);
    const { created, done } = await upload(polar, {
      service: "downloadable",
      bytes,
      mimeType: "application/zip",
      partSize: 1000,
      name: "album.zip",
    });
    expect(created).toMatchObject({
      name: "album.zip",
      mimeType: "application/zip",
      size: 2500,
      isUploaded: false,
      service: "downloadable",
      organizationId: acme.organizationId,
      sizeReadable: "2.4 KB",
    });
    expect(
      created.upload.parts.map((p: FileUpload["upload"]["parts"][number]) => [p.chunkStart, p.chunkEnd]),
    ).toEqual([
      [0, 1000],
      [1000, 2000],
      [2000, 2500],
    ]);
    for (const part of created.upload.parts) {
      expect(part.url).toMatch(
        new RegExp(`^${server.url}/storage/uploads/${created.id}/${part.number}\\?expires=\\d+&signature=`),
      );
      expect(part.expiresAt.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    }
    expect(done).toMatchObject({
      id: created.id,
      service: "downloadable",
      isUploaded: true,
      checksumSha256Base64: sha256(bytes),
      checksumSha256Hex: createHash("sha256").update(bytes).digest("hex"),
    });
    expect(done.lastModifiedAt).toBeInstanceOf(Date);
    const stored = path.join(dataDir(), "files", "objects", acme.organizationId, created.id);
    expect(readFileSync(stored).equals(bytes)).toBe(true);
    expect(existsSync(path.join(dataDir(), "files", "uploads", created.id))).toBe(false);

    const list = await polar.files.list({ ids: [created.id] });
    expect(list.result.items).toHaveLength(1);
    expect(list.result.items[0]).toMatchObject({ id: created.id, isUploaded: true });
    const updated = await polar.files.update({
      id: created.id,
      filePatch: { name: "album-v2.zip", version: "2" },
    });
    expect(updated).toMatchObject({ name: "album-v2.zip", version: "2", service: "downloadable" });
  });

  it("raw HTTP with camelCase: product media served at its public URL with its type and nosniff", async () => {
    const bytes = png(4000);
    const res = await rawCreate({
      name: "cover.png",
      mimeType: "image/png",
      size: bytes.length,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: bytes.length }] },
      service: "product_media",
    });
    expect(res.status).toBe(201);
    const [part] = res.body.upload.parts;
    expect(part.checksum_sha256_base64).toBeNull();
    const putRes = await put(part.url, bytes);
    expect(putRes.status).toBe(200);
    const etag = putRes.headers.get("etag");
    expect(etag).toBe(`"${createHash("sha256").update(bytes).digest("hex")}"`);
    const done = await call(server, token, "POST", `${F}${res.body.id}/uploaded`, {
      id: res.body.upload.id,
      path: res.body.upload.path,
      parts: [{ number: 1, checksumEtag: etag, checksumSha256Base64: null }],
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ is_uploaded: true, service: "product_media" });
    expect(done.body.public_url).toBe(`${server.url}/storage/media/${res.body.id}`);

    const media = await fetch(done.body.public_url);
    expect(media.status).toBe(200);
    expect(media.headers.get("content-type")).toBe("image/png");
    expect(media.headers.get("x-content-type-options")).toBe("nosniff");
    expect(media.headers.get("content-disposition")).toContain('inline; filename="cover.png"');
    expect(Buffer.from(await media.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("a part with a bad checksum is refused and nothing completes", async () => {
    const bytes = randomBytes(300);
    const created = await polar.files.create({
      name: "a.bin",
      mimeType: "application/octet-stream",
      size: 300,
      upload: { parts: partsOf(bytes, 300) },
      service: "downloadable",
    });
    const [part] = created.upload.parts;
    if (!part) throw new Error("no part");
    const corrupted = Buffer.from(bytes);
    corrupted[7] = (corrupted[7] ?? 0) ^ 0xff;
    const res = await put(part.url, corrupted);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "BadDigest" });
    expect(existsSync(path.join(dataDir(), "files", "uploads", created.id, "1.part"))).toBe(false);

    const done = await call(server, token, "POST", `${F}${created.id}/uploaded`, {
      id: created.upload.id,
      path: created.upload.path,
      parts: [{ number: 1, checksum_etag: "x", checksum_sha256_base64: null }],
    });
    expect(done.status).toBe(422);
    expect(done.body.detail[0]).toMatchObject({ loc: ["body", "parts", 0, "number"] });
    const [row] = await server.sql<{ is_uploaded: boolean }>(
      "select is_uploaded from kassa_file where id = $1",
      created.id,
    );
    expect(row?.is_uploaded).toBe(false);
  });

  it("a whole-file checksum that does not match is refused at completion; the file stays not uploaded", async () => {
    const bytes = randomBytes(500);
    const created = await polar.files.create({
      name: "b.bin",
      mimeType: "application/octet-stream",
      size: 500,
      checksumSha256Base64: sha256(randomBytes(500)),
      upload: { parts: partsOf(bytes, 250) },
      service: "downloadable",
    });
    const parts = [];
    for (const part of created.upload.parts) {
      const res = await put(part.url, bytes.subarray(part.chunkStart, part.chunkEnd));
      parts.push({
        number: part.number,
        checksum_etag: res.headers.get("etag"),
        checksum_sha256_base64: null,
      });
    }
    const done = await call(server, token, "POST", `${F}${created.id}/uploaded`, {
      id: created.upload.id,
      path: created.upload.path,
      parts,
    });
    expect(done.status).toBe(422);
    expect(done.body.detail[0].loc).toEqual(["body", "parts"]);
    expect(done.body.detail[0].msg).toMatch(/SHA-256/);
    const list = await call(server, token, "GET", `${F}?ids=${created.id}`);
    expect(list.body.items[0].is_uploaded).toBe(false);
    expect(existsSync(path.join(dataDir(), "files", "objects", acme.organizationId, created.id))).toBe(false);

    // A wrong ETag for a part names that part.
    const wrong = await call(server, token, "POST", `${F}${created.id}/uploaded`, {
      id: created.upload.id,
      path: created.upload.path,
      parts: [parts[0], { ...parts[1], checksum_etag: '"0000"' }],
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0].loc).toEqual(["body", "parts", 1, "checksum_etag"]);
  });

  it("completions sent at the same time all answer the uploaded file", async () => {
    const bytes = randomBytes(300_000);
    const created = await polar.files.create({
      name: "twice.bin",
      mimeType: "application/octet-stream",
      size: bytes.length,
      upload: { parts: partsOf(bytes, 100_000) },
      service: "downloadable",
    });
    const parts = [];
    for (const part of created.upload.parts) {
      const res = await put(part.url, bytes.subarray(part.chunkStart, part.chunkEnd));
      parts.push({
        number: part.number,
        checksum_etag: res.headers.get("etag"),
        checksum_sha256_base64: null,
      });
    }
    const body = { id: created.upload.id, path: created.upload.path, parts };
    const answers = await Promise.all(
      [1, 2, 3].map(() => call(server, token, "POST", `${F}${created.id}/uploaded`, body)),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    for (const a of answers)
      expect(a.body).toMatchObject({ is_uploaded: true, checksum_sha256_base64: sha256(bytes) });
    const stored = path.join(dataDir(), "files", "objects", acme.organizationId, created.id);
    expect(readFileSync(stored).equals(bytes)).toBe(true);
  });

  it("a PUT larger or smaller than its part is refused", async () => {
    const created = await polar.files.create({
      name: "c.bin",
      mimeType: "application/octet-stream",
      size: 100,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 100 }] },
      service: "downloadable",
    });
    const url = created.upload.parts[0]?.url ?? "";
    expect((await put(url, randomBytes(101))).status).toBe(413);
    const short = await put(url, randomBytes(99));
    expect(short.status).toBe(400);
    expect(await short.json()).toMatchObject({ error: "IncompleteBody" });
  });

  it("an image whose bytes are not the declared type is refused at completion", async () => {
    const html = Buffer.from("<html><script>alert(1)</script></html>");
    const created = await polar.files.create({
      name: "x.png",
      mimeType: "image/png",
      size: html.length,
      upload: { parts: partsOf(html, html.length) },
      service: "product_media",
    });
    const part = created.upload.parts[0];
    const res = await put(part?.url ?? "", html);
    const done = await call(server, token, "POST", `${F}${created.id}/uploaded`, {
      id: created.upload.id,
      path: created.upload.path,
      parts: [{ number: 1, checksum_etag: res.headers.get("etag"), checksum_sha256_base64: null }],
    });
    expect(done.status).toBe(422);
    expect(done.body.detail[0].msg).toMatch(/not a image\/png image/);
  });
});

describe("limits and validation", () => {
  const count = async () =>
    Number((await server.sql<{ n: string }>("select count(*) as n from kassa_file"))[0]?.n);

  it("oversize and wrong types are refused with the field named, and nothing is stored", async () => {
    const before = await count();
    const big = 10 * 1024 * 1024 + 1;
    const oversize = await rawCreate({
      name: "huge.png",
      mime_type: "image/png",
      size: big,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: big }] },
      service: "product_media",
    });
    expect(oversize.status).toBe(422);
    expect(oversize.body.detail.map((d: Json) => d.loc)).toEqual([["body", "size"]]);

    const html = await rawCreate({
      name: "page.html",
      mime_type: "text/html",
      size: 10,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 10 }] },
      service: "organization_avatar",
    });
    expect(html.status).toBe(422);
    expect(html.body.detail.map((d: Json) => d.loc)).toEqual([["body", "mime_type"]]);

    const svg = await rawCreate({
      name: "logo.svg",
      mime_type: "image/svg+xml",
      size: 10,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 10 }] },
      service: "product_media",
    });
    expect(svg.body.detail.map((d: Json) => d.loc)).toEqual([["body", "mime_type"]]);

    const tooBigDownload = 1024 * 1024 * 1024 + 1;
    const download = await rawCreate({
      name: "movie.mp4",
      mime_type: "video/mp4",
      size: tooBigDownload,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: tooBigDownload }] },
      service: "downloadable",
    });
    expect(download.status).toBe(422);
    expect(download.body.detail.map((d: Json) => d.loc)).toEqual([["body", "size"]]);

    const gap = await rawCreate({
      name: "a.bin",
      mime_type: "application/octet-stream",
      size: 100,
      upload: {
        parts: [
          { number: 1, chunk_start: 0, chunk_end: 40 },
          { number: 2, chunk_start: 50, chunk_end: 100 },
        ],
      },
      service: "downloadable",
    });
    expect(gap.status).toBe(422);
    expect(gap.body.detail.map((d: Json) => d.loc)).toEqual([["body", "upload", "parts", 1, "chunk_start"]]);

    const badService = await rawCreate({
      name: "a.bin",
      mime_type: "application/octet-stream",
      size: 1,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 1 }] },
      service: "avatar",
    });
    expect(badService.status).toBe(422);
    expect(badService.body.detail[0].loc).toEqual(["body", "service"]);
    expect(await count()).toBe(before);
  });

  it("a token without files:write cannot create a file", async () => {
    const readOnly = await createToken(acme, ["files:read"]);
    const res = await call(server, readOnly, "POST", F, {
      name: "a.bin",
      mime_type: "application/octet-stream",
      size: 1,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 1 }] },
      service: "downloadable",
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("insufficient_scope");
  });
});

describe("signed URLs", () => {
  it("a tampered or expired upload URL is refused", async () => {
    const bytes = randomBytes(64);
    const created = await polar.files.create({
      name: "t.bin",
      mimeType: "application/octet-stream",
      size: 64,
      upload: { parts: partsOf(bytes, 32) },
      service: "downloadable",
    });
    const [one, two] = created.upload.parts;
    if (!one || !two) throw new Error("two parts expected");
    const url = new URL(one.url);
    const signature = url.searchParams.get("signature") ?? "";

    const flipped = new URL(url);
    flipped.searchParams.set("signature", `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`);
    const otherPart = new URL(url);
    otherPart.pathname = otherPart.pathname.replace(/\/1$/, "/2");
    const otherFile = new URL(url);
    otherFile.pathname = otherFile.pathname.replace(created.id, "00000000-0000-4000-8000-000000000000");
    const later = new URL(url);
    later.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    const unsigned = new URL(url);
    unsigned.search = "";
    for (const bad of [flipped, otherPart, otherFile, later, unsigned]) {
      const res = await put(bad.toString(), bytes.subarray(0, 32));
      expect(res.status, bad.toString()).toBe(403);
      expect((await res.json()).error).toBe("NotPermitted");
    }

    // Signed by the server's key, but an hour ago.
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = `${server.url}/storage/uploads/${created.id}/1?expires=${past}&signature=${serverSigner().sign("upload", created.id, 1, past)}`;
    expect((await put(expired, bytes.subarray(0, 32))).status).toBe(403);
    expect(existsSync(path.join(dataDir(), "files", "uploads", created.id))).toBe(false);

    // The genuine URL works.
    expect((await put(one.url, bytes.subarray(0, 32))).status).toBe(200);
  });

  it("a downloadable is not public: served only through a signed, expiring download URL", async () => {
    const bytes = randomBytes(100);
    const { done } = await upload(polar, {
      service: "downloadable",
      bytes,
      mimeType: "text/html",
      name: "notes.html",
    });
    expect((await fetch(`${server.url}/storage/media/${done.id}`)).status).toBe(404);
    const signer = serverSigner();
    const expires = Math.floor(Date.now() / 1000) + 60;
    const good = `${server.url}/storage/downloads/${done.id}?expires=${expires}&signature=${signer.sign("download", done.id, 0, expires)}`;
    const res = await fetch(good);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="notes.html"/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    // An upload signature is not a download signature.
    const wrongPurpose = `${server.url}/storage/downloads/${done.id}?expires=${expires}&signature=${signer.sign("upload", done.id, 0, expires)}`;
    expect((await fetch(wrongPurpose)).status).toBe(403);
    const past = expires - 120;
    const stale = `${server.url}/storage/downloads/${done.id}?expires=${past}&signature=${signer.sign("download", done.id, 0, past)}`;
    expect((await fetch(stale)).status).toBe(403);
  });

  it("storage paths take ids only: an encoded path is not a file", async () => {
    const secret = readFileSync(path.join(dataDir(), "auth-secret"), "utf8").trim();
    for (const p of [
      "/storage/media/..%2F..%2Fauth-secret",
      "/storage/media/..%2F..%2Ffiles%2Fobjects",
      "/storage/downloads/..%2Fauth-secret?expires=9999999999&signature=x",
      "/storage/media/not-a-uuid",
    ]) {
      const res = await fetch(`${server.url}${p}`);
      const text = await res.text();
      expect([403, 404], p).toContain(res.status);
      expect(text).not.toContain(secret);
    }
  });
});

describe("tenancy", () => {
  it("another organization's file is 404 to list, update, complete and delete", async () => {
    const { done } = await upload(polar, {
      service: "downloadable",
      bytes: randomBytes(10),
      mimeType: "text/plain",
    });
    const list = await call(server, otherToken, "GET", `${F}?ids=${done.id}`);
    expect(list.body.items).toEqual([]);
    expect((await call(server, otherToken, "PATCH", `${F}${done.id}`, { name: "mine" })).status).toBe(404);
    expect(
      (
        await call(server, otherToken, "POST", `${F}${done.id}/uploaded`, {
          id: "x",
          path: "y",
          parts: [{ number: 1, checksum_etag: "e", checksum_sha256_base64: null }],
        })
      ).status,
    ).toBe(404);
    expect((await call(server, otherToken, "DELETE", `${F}${done.id}`)).status).toBe(404);
    expect((await call(server, token, "GET", `${F}?ids=${done.id}`)).body.items[0].name).toBe("file.bin");
  });
});

describe("product medias", () => {
  it("a product shows its media in order, embedded as Polar does; reordered, refused when not media", async () => {
    const a = (
      await upload(polar, { service: "product_media", bytes: png(300), mimeType: "image/png", name: "a.png" })
    ).done;
    const b = (
      await upload(polar, { service: "product_media", bytes: png(500), mimeType: "image/png", name: "b.png" })
    ).done;
    const product = await polar.products.create({
      name: "Poster",
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
      medias: [b.id, a.id],
    });
    expect(product.medias.map((m) => m.id)).toEqual([b.id, a.id]);
    expect(product.medias[0]).toMatchObject({
      service: "product_media",
      name: "b.png",
      mimeType: "image/png",
      isUploaded: true,
      publicUrl: `${server.url}/storage/media/${b.id}`,
    });
    const reordered = await polar.products.update({ id: product.id, productUpdate: { medias: [a.id] } });
    expect(reordered.medias.map((m) => m.id)).toEqual([a.id]);
    expect((await polar.products.get({ id: product.id })).medias.map((m) => m.id)).toEqual([a.id]);

    const download = (
      await upload(polar, { service: "downloadable", bytes: randomBytes(10), mimeType: "text/plain" })
    ).done;
    const pending = await polar.files.create({
      name: "p.png",
      mimeType: "image/png",
      size: 10,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 10 }] },
      service: "product_media",
    });
    const refused = await call(server, token, "PATCH", `/v1/products/${product.id}`, {
      medias: [a.id, download.id, pending.id, "00000000-0000-4000-8000-000000000000", a.id],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail.map((d: Json) => d.loc)).toEqual([
      ["body", "medias", 1],
      ["body", "medias", 2],
      ["body", "medias", 3],
      ["body", "medias", 4],
    ]);
    expect((await polar.products.get({ id: product.id })).medias.map((m) => m.id)).toEqual([a.id]);

    // Another organization cannot use this media.
    const theirs = await call(server, otherToken, "POST", "/v1/products/", {
      name: "Copy",
      prices: [{ amount_type: "free" }],
      medias: [a.id],
    });
    expect(theirs.status).toBe(422);
    expect(theirs.body.detail[0]).toMatchObject({ loc: ["body", "medias", 0], msg: "File not found." });
  });

  it("a deleted file leaves its products, its public URL and the disk", async () => {
    const bytes = png(256);
    const { done } = await upload(polar, { service: "product_media", bytes, mimeType: "image/png" });
    const product = await polar.products.create({
      name: "Mug",
      prices: [{ amountType: "free" }],
      medias: [done.id],
    });
    expect(product.medias).toHaveLength(1);
    const publicUrl = (done as { publicUrl: string }).publicUrl;
    expect((await fetch(publicUrl)).status).toBe(200);
    await polar.files.delete({ id: done.id });
    expect((await polar.products.get({ id: product.id })).medias).toEqual([]);
    expect((await fetch(publicUrl)).status).toBe(404);
    expect((await call(server, token, "GET", `${F}?ids=${done.id}`)).body.items).toEqual([]);
    expect(existsSync(path.join(dataDir(), "files", "objects", acme.organizationId, done.id))).toBe(false);
    expect((await call(server, token, "DELETE", `${F}${done.id}`)).status).toBe(404);
  });
});

describe("README", () => {
  // The snippet runs in a Node process of its own: it needs a server on a real socket.
  let readmeServer: TestServer;
  let readmeToken: string;
  beforeAll(async () => {
    readmeServer = await startTestServer();
    readmeToken = await createToken(await createMerchant(readmeServer, "Readme"), [
      "files:write",
      "products:write",
    ]);
  });
  afterAll(() => readmeServer?.stop());

  it("the files snippet uploads a product media and puts it on a product, as written", async () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const readme = readFileSync(path.join(here, "../../../README.md"), "utf8");
    const snippet = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1] ?? "")
      .find((s) => s.includes("polar.files.create("));
    expect(snippet).toBeDefined();
    const polar = sdk(readmeServer, readmeToken);
    const product = await polar.products.create({ name: "Framed print", prices: [{ amountType: "free" }] });
    const cwd = mkdtempSync(path.join(os.tmpdir(), "kassa-readme-files-"));
    const cover = png(1234);
    writeFileSync(path.join(cwd, "cover.png"), cover);
    // The snippet assumes a client and a product id; everything else runs as written.
    const prelude = `import { Polar } from "@polar-sh/sdk";\nconst polar = new Polar({ accessToken: process.env.KASSA_TOKEN, serverURL: "${readmeServer.url}" });\nconst productId = process.env.PRODUCT_ID;\n`;
    const file = path.join(here, `.readme-files-${process.pid}.mts`);
    writeFileSync(file, prelude + (snippet ?? ""));
    try {
      // tsx from this repository (the snippet runs in a directory of its own, holding cover.png).
      const tsx = pathToFileURL(path.join(here, "../../../node_modules/tsx/dist/loader.mjs")).href;
      await promisify(execFile)(process.execPath, ["--import", tsx, file], {
        cwd,
        env: { ...process.env, KASSA_TOKEN: readmeToken, PRODUCT_ID: product.id },
      });
      const [media] = (await polar.products.get({ id: product.id })).medias;
      expect(media).toMatchObject({ name: "cover.png", isUploaded: true, size: cover.length });
      const served = await fetch(media?.publicUrl ?? "");
      expect(Buffer.from(await served.arrayBuffer()).equals(cover)).toBe(true);
    } finally {
      rmSync(file, { force: true });
      rmSync(cwd, { recursive: true, force: true });
    }
    // A fresh Node process that loads tsx and the SDK from source: 21-29 s in CI's lanes on a
    // slow two-core machine, where the server suites' 30 s limit failed it once.
  }, 90_000);
});
