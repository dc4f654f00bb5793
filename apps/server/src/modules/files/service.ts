import { randomUUID } from "node:crypto";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import { listResult, type Page } from "../../kit/api/list.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import { FileNotFound } from "./errors.js";
import { allowedTypes, isPublicService, looksLike, MAX_SIZE, sizeReadable } from "./limits.js";
import * as repo from "./repository.js";
import type {
  FileCreateInput,
  FilePatchInput,
  FileReadWire,
  FileUploadCompletedInput,
  FileUploadWire,
} from "./schemas.js";
import type { UrlSigner } from "./signing.js";
import type { FileStorage } from "./storage.js";
import { fileCommonToWire, fileToWire } from "./wire.js";

/** What the files use cases need beside ctx: where bytes go and how storage URLs are made. */
export interface FilesEnv {
  storage: FileStorage;
  signer: UrlSigner;
  baseURL: string;
  /** How long an upload URL stays valid. */
  uploadUrlTtlSeconds: number;
}

export const mediaUrl = (baseURL: string, id: string) => `${baseURL}/storage/media/${id}`;

function checkDeclaration(input: FileCreateInput) {
  const issues: ValidationIssue[] = [];
  const at = (loc: (string | number)[], msg: string, value: unknown) =>
    issues.push({ type: "value_error", loc: ["body", ...loc], msg, input: value });
  const max = MAX_SIZE[input.service];
  if (input.size > max)
    at(["size"], `A ${input.service} file can be at most ${sizeReadable(max)} (${max} bytes).`, input.size);
  const types = allowedTypes(input.service);
  const mime = input.mime_type.split(";")[0]?.trim().toLowerCase() ?? "";
  if (types && !types.includes(mime))
    at(["mime_type"], `A ${input.service} file must be one of: ${types.join(", ")}.`, input.mime_type);
  // The parts must cover the file exactly, in order: [0, a), [a, b), ... [z, size).
  let expectedStart = 0;
  input.upload.parts.forEach((part, i) => {
    if (part.number !== i + 1)
      at(
        ["upload", "parts", i, "number"],
        `Parts are numbered 1, 2, 3... in order; expected ${i + 1}.`,
        part.number,
      );
    if (part.chunk_start !== expectedStart)
      at(
        ["upload", "parts", i, "chunk_start"],
        `Must be ${expectedStart}, where the previous part ends.`,
        part.chunk_start,
      );
    if (part.chunk_end <= part.chunk_start)
      at(["upload", "parts", i, "chunk_end"], "Must be greater than chunk_start.", part.chunk_end);
    expectedStart = part.chunk_end;
  });
  const last = input.upload.parts.at(-1);
  if (last && last.chunk_end !== input.size)
    at(
      ["upload", "parts", input.upload.parts.length - 1, "chunk_end"],
      `The last part must end at the file's size (${input.size}).`,
      last.chunk_end,
    );
  if (issues.length > 0) throw new RequestValidationError(issues);
}

function uploadToWire(row: repo.FileRow, env: FilesEnv, now: Date): FileUploadWire {
  const expires = Math.floor(now.getTime() / 1000) + env.uploadUrlTtlSeconds;
  return {
    ...fileCommonToWire(row),
    service: row.service as FileUploadWire["service"],
    upload: {
      id: row.upload_id,
      path: row.path,
      parts: row.parts.map((part) => {
        const signature = env.signer.sign("upload", row.id, part.number, expires);
        const url = `${env.baseURL}/storage/uploads/${row.id}/${part.number}?expires=${expires}&signature=${signature}`;
        return {
          ...part,
          url,
          expires_at: new Date(expires * 1000).toISOString(),
          headers: {
            "Content-Type": row.mime_type,
            ...(part.checksum_sha256_base64 ? { "x-amz-checksum-sha256": part.checksum_sha256_base64 } : {}),
          },
        };
      }),
    },
  };
}

/** `POST /v1/files/`: declares a file and answers one signed upload URL per part. */
export async function createFile({ ctx, env, input }: { ctx: Ctx; env: FilesEnv; input: FileCreateInput }) {
  checkDeclaration(input);
  const now = ctx.clock.now();
  const id = randomUUID();
  const row = {
    id,
    organization_id: ctx.organizationId,
    service: input.service,
    name: input.name,
    path: `${ctx.organizationId}/${id}/${input.name}`,
    mime_type: input.mime_type,
    size: input.size,
    version: input.version ?? null,
    checksum_sha256_base64: input.checksum_sha256_base64 ?? null,
    checksum_sha256_hex: null,
    checksum_etag: null,
    upload_id: randomUUID(),
    parts: input.upload.parts.map((p) => ({
      number: p.number,
      chunk_start: p.chunk_start,
      chunk_end: p.chunk_end,
      checksum_sha256_base64: p.checksum_sha256_base64 ?? null,
    })),
    public_url: isPublicService(input.service) ? mediaUrl(env.baseURL, id) : null,
    last_modified_at: null,
    created_at: now,
    modified_at: null,
    deleted_at: null,
  };
  await repo.insertFile(ctx.db, { ...row, parts: JSON.stringify(row.parts) });
  return uploadToWire({ ...row, is_uploaded: false }, env, now);
}

const etagOf = (sha256: Buffer) => sha256.toString("hex");
const unquote = (etag: string) => etag.replace(/^W\//, "").replace(/^"(.*)"$/, "$1");

/**
 * `POST /v1/files/{id}/uploaded`: checks every part against what was uploaded (ETag and
 * SHA-256), joins them, checks the whole file's SHA-256 when one was declared (and that an
 * image is the type it claims), then marks the file uploaded. Any mismatch is a 422 and the
 * file stays not uploaded; its parts can be uploaded again.
 */
export async function completeUpload({
  ctx,
  env,
  input,
}: {
  ctx: Ctx;
  env: FilesEnv;
  input: { id: string; body: FileUploadCompletedInput };
}): Promise<FileReadWire> {
  if (!isUuid(input.id)) throw new FileNotFound();
  const file = await repo.findFile(ctx.db, ctx.organizationId, input.id);
  if (!file) throw new FileNotFound();
  if (file.is_uploaded) return fileToWire(file);
  const { body } = input;
  const issues: ValidationIssue[] = [];
  const at = (loc: (string | number)[], msg: string, value: unknown) =>
    issues.push({ type: "value_error", loc: ["body", ...loc], msg, input: value });
  if (body.id !== file.upload_id) at(["id"], "Not this file's upload id.", body.id);
  if (body.path !== file.path) at(["path"], "Not this file's path.", body.path);
  const declared = file.parts.map((p) => p.number);
  const given = body.parts.map((p) => p.number);
  if (given.length !== declared.length || given.some((n, i) => n !== declared[i]))
    at(["parts"], `List every part once, in order: ${declared.join(", ")}.`, given);
  if (issues.length > 0) throw new RequestValidationError(issues);

  const joinAndCheck = async (): Promise<FileReadWire> => {
    for (const [i, part] of body.parts.entries()) {
      const stored = await env.storage.readPart(file.id, part.number);
      if (!stored) {
        at(["parts", i, "number"], `Part ${part.number} has not been uploaded.`, part.number);
        continue;
      }
      if (unquote(part.checksum_etag) !== etagOf(stored.sha256))
        at(
          ["parts", i, "checksum_etag"],
          "Does not match the ETag the part's upload answered.",
          part.checksum_etag,
        );
      if (part.checksum_sha256_base64 && part.checksum_sha256_base64 !== stored.sha256.toString("base64"))
        at(
          ["parts", i, "checksum_sha256_base64"],
          "Does not match the SHA-256 of the uploaded part.",
          part.checksum_sha256_base64,
        );
    }
    if (issues.length > 0) throw new RequestValidationError(issues);

    const assembled = await env.storage.assemble(file.organization_id, file.id, declared);
    const sha256Base64 = assembled.sha256.toString("base64");
    if (assembled.size !== file.size)
      at(["parts"], `The parts add up to ${assembled.size} bytes; ${file.size} were declared.`, given);
    else if (file.checksum_sha256_base64 && file.checksum_sha256_base64 !== sha256Base64)
      at(
        ["parts"],
        "The uploaded file's SHA-256 does not match the checksum_sha256_base64 declared at creation.",
        given,
      );
    else if (
      isPublicService(file.service) &&
      !looksLike(file.mime_type.split(";")[0]?.trim() ?? "", assembled.head)
    )
      at(["parts"], `The uploaded bytes are not a ${file.mime_type} image.`, given);
    if (issues.length > 0) {
      await assembled.discard();
      throw new RequestValidationError(issues);
    }
    await assembled.commit();
    const now = ctx.clock.now();
    await repo.markUploaded(ctx.db, ctx.organizationId, file.id, {
      checksum_sha256_base64: sha256Base64,
      checksum_sha256_hex: assembled.sha256.toString("hex"),
      checksum_etag: etagOf(assembled.sha256),
      last_modified_at: now,
      modified_at: now,
    });
    // Only now: a completion running beside this one finds the file uploaded if the parts are gone.
    await env.storage.removeParts(file.id);
    const done = await repo.findFile(ctx.db, ctx.organizationId, file.id);
    if (!done) throw new FileNotFound();
    return fileToWire(done);
  };
  try {
    return await joinAndCheck();
  } catch (error) {
    // A completion running at the same time (here or in another process) may have joined the
    // parts and removed them first: then the file is uploaded, and that is the answer.
    const now = await repo.findFile(ctx.db, ctx.organizationId, file.id);
    if (now?.is_uploaded) return fileToWire(now);
    throw error;
  }
}

export async function listFiles({ ctx, input }: { ctx: Ctx; input: Page & { ids?: string[] | undefined } }) {
  const ids = input.ids?.filter(isUuid);
  if (input.ids?.length && !ids?.length) return listResult([], 0, input);
  const { rows, total } = await repo.listFiles(ctx.db, ctx.organizationId, ids, input);
  return listResult(rows.map(fileToWire), total, input);
}

export async function updateFile({ ctx, input }: { ctx: Ctx; input: { id: string; patch: FilePatchInput } }) {
  if (!isUuid(input.id)) throw new FileNotFound();
  const { name, version } = input.patch;
  const result = await repo.updateFile(ctx.db, ctx.organizationId, input.id, {
    ...(name ? { name } : {}),
    ...(version !== undefined ? { version } : {}),
    modified_at: ctx.clock.now(),
  });
  if (result.numUpdatedRows === 0n) throw new FileNotFound();
  const row = await repo.findFile(ctx.db, ctx.organizationId, input.id);
  if (!row) throw new FileNotFound();
  return fileToWire(row);
}

/** Deletes a file: it leaves the products that showed it, and its bytes are removed. */
export async function deleteFile({ ctx, env, input }: { ctx: Ctx; env: FilesEnv; input: { id: string } }) {
  if (!isUuid(input.id)) throw new FileNotFound();
  const file = await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.findFile(trx, ctx.organizationId, input.id, { forUpdate: true });
    if (!row) throw new FileNotFound();
    await repo.detachFromProducts(trx, row.id);
    await repo.updateFile(trx, ctx.organizationId, row.id, { deleted_at: ctx.clock.now() });
    return row;
  });
  await env.storage.remove(file.organization_id, file.id);
}
