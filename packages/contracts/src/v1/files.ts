import { z } from "zod";
import { DateTime } from "./common.js";
import { FILE_SERVICES, MAX_PARTS, MIME_TYPE } from "./values.js";

/** A SHA-256 digest in base64 (32 bytes). */
const Sha256Base64 = z
  .string()
  .refine((v) => /^[A-Za-z0-9+/]{43}=$/.test(v), { message: "Must be a base64-encoded SHA-256 digest." });

export const FileCreatePart = z
  .object({
    number: z.number().int().min(1).max(MAX_PARTS),
    chunk_start: z.number().int().min(0),
    chunk_end: z.number().int().min(1),
    checksum_sha256_base64: Sha256Base64.nullish(),
  })
  .meta({ id: "S3FileCreatePart" });

export const FileCreate = z
  .object({
    organization_id: z.string().nullish(),
    name: z.string().min(1).max(255),
    mime_type: z.string().max(255).regex(MIME_TYPE, "Must be a MIME type such as image/png."),
    size: z.number().int().min(1),
    checksum_sha256_base64: Sha256Base64.nullish(),
    upload: z
      .object({ parts: z.array(FileCreatePart).min(1).max(MAX_PARTS) })
      .meta({ id: "S3FileCreateMultipart" }),
    service: z.enum(FILE_SERVICES),
    version: z.string().max(255).nullish(),
  })
  .meta({ id: "FileCreate" });

export const FileUploadCompleted = z
  .object({
    id: z.string(),
    path: z.string(),
    parts: z
      .array(
        z
          .object({
            number: z.number().int().min(1),
            checksum_etag: z.string(),
            checksum_sha256_base64: Sha256Base64.nullable(),
          })
          .meta({ id: "S3FileUploadCompletedPart" }),
      )
      .min(1),
  })
  .meta({ id: "FileUploadCompleted" });

export const FilePatch = z
  .object({ name: z.string().min(1).max(255).nullish(), version: z.string().max(255).nullish() })
  .meta({ id: "FilePatch" });

const fileCommon = {
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  path: z.string(),
  mime_type: z.string(),
  size: z.number().int(),
  storage_version: z.string().nullable(),
  checksum_etag: z.string().nullable(),
  checksum_sha256_base64: z.string().nullable(),
  checksum_sha256_hex: z.string().nullable(),
  last_modified_at: DateTime.nullable(),
  version: z.string().nullable(),
  is_uploaded: z.boolean(),
  size_readable: z.string(),
};

export const DownloadableFileRead = z
  .object({ ...fileCommon, service: z.literal("downloadable"), created_at: DateTime })
  .meta({ id: "DownloadableFileRead" });
/** A file a customer was granted, with a short-lived signed URL to download it (Polar's `FileDownload`). */
export const FileDownload = z
  .object({
    ...fileCommon,
    service: z.literal("downloadable"),
    download: z.object({ url: z.string(), headers: z.record(z.string(), z.string()), expires_at: DateTime }),
  })
  .meta({ id: "FileDownload" });
/** One file of a customer's downloadables grant (Polar's `DownloadableRead`). */
export const DownloadableRead = z
  .object({ id: z.string(), benefit_id: z.string(), file: FileDownload })
  .meta({ id: "DownloadableRead" });
export const ProductMediaFileRead = z
  .object({
    ...fileCommon,
    service: z.literal("product_media"),
    created_at: DateTime,
    public_url: z.string(),
  })
  .meta({ id: "ProductMediaFileRead" });
export const OrganizationAvatarFileRead = z
  .object({
    ...fileCommon,
    service: z.literal("organization_avatar"),
    created_at: DateTime,
    public_url: z.string(),
  })
  .meta({ id: "OrganizationAvatarFileRead" });

export const FileRead = z
  .discriminatedUnion("service", [DownloadableFileRead, ProductMediaFileRead, OrganizationAvatarFileRead])
  .meta({ id: "FileRead" });

export const FileUpload = z
  .object({
    ...fileCommon,
    service: z.enum(FILE_SERVICES),
    upload: z
      .object({
        id: z.string(),
        path: z.string(),
        parts: z.array(
          z
            .object({
              number: z.number().int(),
              chunk_start: z.number().int(),
              chunk_end: z.number().int(),
              checksum_sha256_base64: z.string().nullable(),
              url: z.string(),
              expires_at: DateTime,
              headers: z.record(z.string(), z.string()),
            })
            .meta({ id: "S3FileUploadPart" }),
        ),
      })
      .meta({ id: "S3FileUploadMultipart" }),
  })
  .meta({ id: "FileUpload" });

export type FileCreateInput = z.output<typeof FileCreate>;
export type FileUploadCompletedInput = z.output<typeof FileUploadCompleted>;
export type FilePatchInput = z.output<typeof FilePatch>;
export type FileReadWire = z.output<typeof FileRead>;
export type ProductMediaWire = z.output<typeof ProductMediaFileRead>;
export type FileUploadWire = z.output<typeof FileUpload>;
