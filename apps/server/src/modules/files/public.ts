import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { HttpBindings } from "@hono/node-server";
import type { Context, Hono } from "hono";
import { ApiError } from "../../kit/api/errors.js";
import type { Logger } from "../../kit/logger.js";
import { openDownload, openMedia, putPart, type Served, type StorageDeps } from "./serve.js";

/** Headers every storage answer carries: the browser must take the declared type, never guess one. */
const SAFE = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; img-src 'self'; sandbox",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

/** Upload URLs are capabilities (like S3's presigned URLs), so any origin may use them. */
const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "PUT, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, x-amz-checksum-sha256",
  "Access-Control-Expose-Headers": "ETag, x-amz-checksum-sha256",
  "Access-Control-Max-Age": "600",
};

function contentDisposition(kind: "inline" | "attachment", name: string) {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function serve(c: Context, served: Served, kind: "inline" | "attachment", cache: string) {
  const etag = served.etag ? `"${served.etag}"` : undefined;
  if (etag && c.req.header("if-none-match") === etag) {
    served.body.destroy();
    return c.body(null, 304, { ...SAFE, ETag: etag, "Cache-Control": cache });
  }
  return new Response(Readable.toWeb(served.body) as ReadableStream, {
    status: 200,
    headers: {
      ...SAFE,
      "Content-Type": served.mimeType,
      "Content-Length": String(served.size),
      "Content-Disposition": contentDisposition(kind, served.name),
      "Cache-Control": cache,
      ...(etag ? { ETag: etag } : {}),
    },
  });
}

/**
 * The storage URLs, outside `/v1` (their bodies are bytes, not JSON, and their credential is
 * the URL itself): `PUT /storage/uploads/{id}/{part}` (signed), `GET /storage/media/{id}`
 * (public: product media and avatars), `GET /storage/downloads/{id}` (signed, expiring).
 */
export function registerStorageRoutes(
  app: Hono<{ Bindings: HttpBindings }>,
  deps: StorageDeps & { logger: Logger },
) {
  const fail = (c: Context, error: unknown, extra: Record<string, string> = {}) => {
    if (error instanceof ApiError)
      return c.json(error.body(), error.status, { ...SAFE, ...extra, ...error.headers() });
    deps.logger.error("storage request failed", { path: c.req.path, error });
    return c.json({ error: "InternalServerError", detail: "Something went wrong on our side." }, 500, extra);
  };

  app.options("/storage/uploads/:id/:part", (c) => c.body(null, 204, CORS));
  app.put("/storage/uploads/:id/:part", async (c) => {
    try {
      const length = c.req.header("content-length");
      const stored = await putPart(deps, {
        fileId: c.req.param("id"),
        number: /^\d{1,5}$/.test(c.req.param("part")) ? Number(c.req.param("part")) : Number.NaN,
        query: { expires: c.req.query("expires"), signature: c.req.query("signature") },
        contentLength: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
        checksumHeader: c.req.header("x-amz-checksum-sha256"),
        body: () => c.req.raw.body as WebReadableStream<Uint8Array> | null,
      });
      return c.body(null, 200, {
        ...CORS,
        ...SAFE,
        ETag: `"${stored.etag}"`,
        "x-amz-checksum-sha256": stored.sha256Base64,
      });
    } catch (error) {
      return fail(c, error, CORS);
    }
  });

  app.get("/storage/media/:id", async (c) => {
    try {
      // Content under an id never changes (a new upload is a new id); deletion is what a cache may miss.
      return serve(c, await openMedia(deps, c.req.param("id")), "inline", "public, max-age=3600");
    } catch (error) {
      return fail(c, error);
    }
  });

  app.get("/storage/downloads/:id", async (c) => {
    try {
      const served = await openDownload(deps, c.req.param("id"), {
        expires: c.req.query("expires"),
        signature: c.req.query("signature"),
      });
      return serve(c, served, "attachment", "private, no-store");
    } catch (error) {
      return fail(c, error);
    }
  });
}
