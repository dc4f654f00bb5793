import type { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { ApiError, ResourceNotFound } from "../../kit/api/errors.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Clock } from "../../kit/clock.js";
import { isPublicService } from "./limits.js";
import * as repo from "./repository.js";
import type { FilesEnv } from "./service.js";
import { PartRefused } from "./storage.js";

/**
 * The storage side of files: what the signed upload URLs, the public media URLs and the signed
 * download URLs do. The caller is not authenticated; a signature (or, for public media, the
 * file's unguessable id) is the credential.
 */
export interface StorageDeps {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  env: FilesEnv;
}

class StorageError extends ApiError {}

/** 413 for a part whose body ran past its size while being read (no length was declared). */
class PartCutOff extends StorageError {
  constructor(message: string) {
    super("PayloadTooLarge", 413, message);
  }

  override headers(): Record<string, string> {
    return { Connection: "close" };
  }
}

const expired = () =>
  new StorageError("NotPermitted", 403, "The URL is invalid or has expired. Ask for a new one.");

export interface SignedQuery {
  expires: string | undefined;
  signature: string | undefined;
}

function checkSignature(
  deps: StorageDeps,
  purpose: "upload" | "download",
  fileId: string,
  part: number,
  q: SignedQuery,
) {
  const expires = Number(q.expires);
  if (!q.signature || !Number.isSafeInteger(expires)) throw expired();
  if (!deps.env.signer.verify(purpose, fileId, part, expires, q.signature, deps.clock.now())) throw expired();
}

/** `PUT` to an upload URL: stores one part, bounded by its declared size and checked against its checksum. */
export async function putPart(
  deps: StorageDeps,
  input: {
    fileId: string;
    number: number;
    query: SignedQuery;
    contentLength: number | undefined;
    checksumHeader: string | undefined;
    /**
     * The request's body, asked for only once every check has passed: @hono/node-server starts
     * pulling the socket into the body's stream when it is first asked for, and a socket held
     * by that stream is not drained after a refusal (the connection closed under a client still
     * sending). Unasked, the server reads and drops the rest, and the connection stays usable.
     */
    body: () => WebReadableStream<Uint8Array> | null;
  },
): Promise<{ etag: string; sha256Base64: string }> {
  if (!isUuid(input.fileId) || !Number.isSafeInteger(input.number)) throw expired();
  checkSignature(deps, "upload", input.fileId, input.number, input.query);
  const file = await repo.findFileById(deps.db, input.fileId);
  if (!file) throw new ResourceNotFound("File not found.");
  if (file.is_uploaded)
    throw new StorageError("ResourceAlreadyExists", 409, "This file is already uploaded.");
  const part = file.parts.find((p) => p.number === input.number);
  if (!part) throw new ResourceNotFound("Part not found.");
  const size = part.chunk_end - part.chunk_start;
  if (input.contentLength !== undefined && input.contentLength > size)
    throw new StorageError(
      "PayloadTooLarge",
      413,
      `Part ${part.number} is ${size} bytes; the request is larger.`,
    );
  const declared = part.checksum_sha256_base64 ?? input.checksumHeader;
  if (
    part.checksum_sha256_base64 &&
    input.checksumHeader &&
    input.checksumHeader !== part.checksum_sha256_base64
  )
    throw new StorageError(
      "BadDigest",
      400,
      "x-amz-checksum-sha256 differs from the part's declared checksum.",
    );
  try {
    const stored = await deps.env.storage.putPart(file.id, part.number, input.body(), {
      size,
      sha256: declared ? Buffer.from(declared, "base64") : undefined,
    });
    return { etag: stored.sha256.toString("hex"), sha256Base64: stored.sha256.toString("base64") };
  } catch (error) {
    if (!(error instanceof PartRefused)) throw error;
    // Cut off partway: the rest of the body is unread and the connection cannot carry another
    // request, so the answer closes it.
    if (error.reason === "too_large") throw new PartCutOff(error.message);
    if (error.reason === "bad_digest") throw new StorageError("BadDigest", 400, error.message);
    throw new StorageError("IncompleteBody", 400, error.message);
  }
}

export interface Served {
  name: string;
  mimeType: string;
  size: number;
  etag: string | null;
  body: Readable;
}

/** A product media or avatar, uploaded and not deleted, for its public URL. */
export async function openMedia(deps: StorageDeps, fileId: string): Promise<Served> {
  const file = isUuid(fileId) ? await repo.findFileById(deps.db, fileId) : undefined;
  if (!file?.is_uploaded || !isPublicService(file.service)) throw new ResourceNotFound("File not found.");
  return {
    name: file.name,
    mimeType: file.mime_type,
    size: file.size,
    etag: file.checksum_etag,
    body: await deps.env.storage.open(file.organization_id, file.id),
  };
}

/** Any uploaded file, for a download URL this server signed. */
export async function openDownload(deps: StorageDeps, fileId: string, query: SignedQuery): Promise<Served> {
  if (!isUuid(fileId)) throw expired();
  checkSignature(deps, "download", fileId, 0, query);
  const file = await repo.findFileById(deps.db, fileId);
  if (!file?.is_uploaded) throw new ResourceNotFound("File not found.");
  return {
    name: file.name,
    mimeType: file.mime_type,
    size: file.size,
    etag: file.checksum_etag,
    body: await deps.env.storage.open(file.organization_id, file.id),
  };
}

/** A download URL for a file (what a downloadables benefit hands a customer). */
export function downloadUrl(
  env: Pick<FilesEnv, "signer" | "baseURL">,
  fileId: string,
  now: Date,
  ttlSeconds = 3600,
) {
  const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
  const signature = env.signer.sign("download", fileId, 0, expires);
  return {
    url: `${env.baseURL}/storage/downloads/${fileId}?expires=${expires}&signature=${signature}`,
    expires_at: new Date(expires * 1000).toISOString(),
  };
}
