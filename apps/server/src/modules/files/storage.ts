import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";

/** Why a part was not stored. */
export class PartRefused extends Error {
  constructor(
    readonly reason: "too_large" | "incomplete" | "bad_digest",
    message: string,
  ) {
    super(message);
  }
}

export interface StoredPart {
  size: number;
  sha256: Buffer;
}

export interface Assembled {
  size: number;
  sha256: Buffer;
  /** The first bytes, to check an image is what it says. */
  head: Buffer;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * Where file bytes live. Keys are made of ids only (UUIDs checked by the caller, part numbers
 * as integers), never of names a client chose, so no path can leave the storage root.
 */
export interface FileStorage {
  /** Stores one part if it is exactly `size` bytes (and has `sha256` when given); replaces an earlier upload of it. */
  putPart(
    fileId: string,
    number: number,
    body: WebReadableStream<Uint8Array> | null,
    expected: { size: number; sha256?: Buffer | undefined },
  ): Promise<StoredPart>;
  /** A stored part's size and SHA-256, or undefined if it was not uploaded. */
  readPart(fileId: string, number: number): Promise<StoredPart | undefined>;
  /** Joins the parts, in order, into the file's object (kept aside until `commit`). */
  assemble(organizationId: string, fileId: string, numbers: number[]): Promise<Assembled>;
  open(organizationId: string, fileId: string): Promise<Readable>;
  /** Removes an upload's parts (once its file is committed and marked uploaded). */
  removeParts(fileId: string): Promise<void>;
  /** Removes the object and any parts left. */
  remove(organizationId: string, fileId: string): Promise<void>;
}

const HEAD_BYTES = 32;

/** Counts and hashes what flows through, and stops the stream past `limit` bytes. */
function meter(limit: number) {
  const hash = createHash("sha256");
  let size = 0;
  const head: Buffer[] = [];
  let headSize = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) return done(new PartRefused("too_large", `The part is larger than ${limit} bytes.`));
      hash.update(chunk);
      if (headSize < HEAD_BYTES) {
        head.push(chunk.subarray(0, HEAD_BYTES - headSize));
        headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
      }
      done(null, chunk);
    },
  });
  return {
    stream,
    result: () => ({ size, sha256: hash.digest(), head: Buffer.concat(head) }),
  };
}

/** Local disk under `root` (`DATA_DIR/files` by default). */
export function diskStorage(root: string): FileStorage {
  return diskLayout(root).storage;
}

/** The disk storage and where it keeps things (the S3 storage stages parts through it). */
export function diskLayout(root: string) {
  const partsDir = (fileId: string) => path.join(root, "uploads", fileId);
  const partFile = (fileId: string, n: number) => path.join(partsDir(fileId), `${n}.part`);
  const objectFile = (organizationId: string, fileId: string) =>
    path.join(root, "objects", organizationId, fileId);
  const temp = (file: string) => `${file}.${randomBytes(6).toString("hex")}.tmp`;

  const storage: FileStorage = {
    async putPart(fileId, number, body, expected) {
      const target = partFile(fileId, number);
      await mkdir(path.dirname(target), { recursive: true });
      const tmp = temp(target);
      const m = meter(expected.size);
      try {
        const source = body ? Readable.fromWeb(body) : Readable.from([]);
        await pipeline(source, m.stream, createWriteStream(tmp));
        const { size, sha256 } = m.result();
        if (size !== expected.size)
          throw new PartRefused("incomplete", `The part is ${size} bytes; ${expected.size} were declared.`);
        if (expected.sha256 && !sha256.equals(expected.sha256))
          throw new PartRefused("bad_digest", "The part's SHA-256 does not match its declared checksum.");
        await rename(tmp, target);
        return { size, sha256 };
      } catch (error) {
        await rm(tmp, { force: true });
        throw error;
      }
    },

    async readPart(fileId, number) {
      const file = partFile(fileId, number);
      const info = await stat(file).catch(() => undefined);
      if (!info) return undefined;
      const hash = createHash("sha256");
      await pipeline(createReadStream(file), hash);
      return { size: info.size, sha256: hash.digest() };
    },

    async assemble(organizationId, fileId, numbers) {
      const target = objectFile(organizationId, fileId);
      await mkdir(path.dirname(target), { recursive: true });
      const tmp = temp(target);
      const m = meter(Number.MAX_SAFE_INTEGER);
      const out = await open(tmp, "w");
      try {
        const writer = out.createWriteStream();
        async function* all() {
          for (const n of numbers)
            for await (const chunk of createReadStream(partFile(fileId, n))) yield chunk;
        }
        await pipeline(Readable.from(all()), m.stream, writer);
      } catch (error) {
        await rm(tmp, { force: true });
        throw error;
      } finally {
        await out.close().catch(() => {});
      }
      const result = m.result();
      return {
        ...result,
        commit: () => rename(tmp, target),
        discard: () => rm(tmp, { force: true }),
      };
    },

    open: async (organizationId, fileId) => createReadStream(objectFile(organizationId, fileId)),

    removeParts: (fileId) => rm(partsDir(fileId), { recursive: true, force: true }),

    async remove(organizationId, fileId) {
      await rm(objectFile(organizationId, fileId), { force: true });
      await rm(partsDir(fileId), { recursive: true, force: true });
    },
  };
  return { storage, partsDir, partFile, objectFile };
}
