import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { diskLayout, type FileStorage } from "./storage.js";

export interface S3Options {
  bucket: string;
  region: string;
  /** An S3-compatible service's URL (MinIO, R2, ...); absent: AWS. */
  endpoint?: string | undefined;
  forcePathStyle: boolean;
  /** Absent: the SDK's default credential chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** Prepended to every key, e.g. `kassa/`. */
  prefix: string;
  /** Local directory where parts are checked and files joined before they go to the bucket. */
  stagingDir: string;
  /** How long a request may wait to connect, and a connection may stay silent (ms). */
  timeoutMs: number;
}

const isMissing = (error: unknown) =>
  error instanceof Error &&
  (error.name === "NotFound" ||
    error.name === "NoSuchKey" ||
    (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404);

/**
 * Files in an S3-compatible bucket. The upload URLs stay Kassa's own (signed by Kassa, so
 * limits and checksums are enforced by the same code as on disk): a part is received and
 * checked on local disk, then put in the bucket with its SHA-256 as metadata; completion joins
 * the parts on local disk, checks the whole, and puts the file in the bucket.
 */
export function s3Storage(opts: S3Options): FileStorage {
  const client = new S3Client({
    region: opts.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    forcePathStyle: opts.forcePathStyle,
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    // Plain requests that every S3-compatible service understands (no aws-chunked trailers).
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // The SDK waits forever by default: a bucket that accepts a connection and never answers
    // would hold an upload, a download or the abandoned-uploads sweep (and a graceful stop
    // behind it) for good. A silent connection fails the call after `timeoutMs`; no total
    // bound, so a large part still uploads over a slow link while bytes move.
    requestHandler: { connectionTimeout: Math.min(opts.timeoutMs, 10_000), socketTimeout: opts.timeoutMs },
  });
  const Bucket = opts.bucket;
  const staging = diskLayout(opts.stagingDir);
  const partKey = (fileId: string, n: number) => `${opts.prefix}uploads/${fileId}/${n}`;
  const objectKey = (organizationId: string, fileId: string) =>
    `${opts.prefix}objects/${organizationId}/${fileId}`;

  async function upload(Key: string, file: string, Metadata?: Record<string, string>) {
    const { size } = await stat(file);
    await client.send(
      new PutObjectCommand({ Bucket, Key, Body: createReadStream(file), ContentLength: size, Metadata }),
    );
  }

  async function removeParts(fileId: string) {
    const listed = await client.send(
      new ListObjectsV2Command({ Bucket, Prefix: `${opts.prefix}uploads/${fileId}/` }),
    );
    for (const o of listed.Contents ?? [])
      if (o.Key) await client.send(new DeleteObjectCommand({ Bucket, Key: o.Key }));
  }

  return {
    async putPart(fileId, number, body, expected) {
      const stored = await staging.storage.putPart(fileId, number, body, expected);
      const file = staging.partFile(fileId, number);
      try {
        await upload(partKey(fileId, number), file, { sha256: stored.sha256.toString("hex") });
      } finally {
        await rm(file, { force: true });
      }
      return stored;
    },

    async readPart(fileId, number) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: partKey(fileId, number) }));
        const sha256 = head.Metadata?.sha256;
        if (!sha256) return undefined;
        return { size: head.ContentLength ?? 0, sha256: Buffer.from(sha256, "hex") };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async assemble(organizationId, fileId, numbers) {
      // A directory of its own per join, so two completions of one file never share files.
      const dir = path.join(opts.stagingDir, "joins", randomUUID());
      const join = diskLayout(dir);
      const cleanup = () => rm(dir, { recursive: true, force: true });
      try {
        await mkdir(join.partsDir(fileId), { recursive: true });
        for (const n of numbers) {
          const got = await client.send(new GetObjectCommand({ Bucket, Key: partKey(fileId, n) }));
          await pipeline(got.Body as Readable, createWriteStream(join.partFile(fileId, n)));
        }
        const joined = await join.storage.assemble(organizationId, fileId, numbers);
        return {
          size: joined.size,
          sha256: joined.sha256,
          head: joined.head,
          async commit() {
            try {
              await joined.commit();
              await upload(objectKey(organizationId, fileId), join.objectFile(organizationId, fileId));
            } finally {
              await cleanup();
            }
          },
          discard: cleanup,
        };
      } catch (error) {
        await cleanup();
        throw error;
      }
    },

    async open(organizationId, fileId) {
      const got = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(organizationId, fileId) }));
      return got.Body instanceof Readable ? got.Body : Readable.from([]);
    },

    removeParts,

    async remove(organizationId, fileId) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(organizationId, fileId) }));
      await removeParts(fileId);
      await rm(path.join(opts.stagingDir, "uploads", fileId), { recursive: true, force: true });
    },
  };
}
