import { iso } from "../../kit/api/schemas.js";
import { sizeReadable } from "./limits.js";
import type { FileRow } from "./repository.js";
import type { FileReadWire, ProductMediaWire } from "./schemas.js";

function common(row: FileRow) {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    path: row.path,
    mime_type: row.mime_type,
    size: row.size,
    storage_version: null,
    checksum_etag: row.checksum_etag,
    checksum_sha256_base64: row.checksum_sha256_base64,
    checksum_sha256_hex: row.checksum_sha256_hex,
    last_modified_at: iso(row.last_modified_at),
    version: row.version,
    is_uploaded: row.is_uploaded,
    size_readable: sizeReadable(row.size),
  };
}

export function fileCommonToWire(row: FileRow) {
  return common(row);
}

/** A file as Polar answers it: product media and avatars carry their public URL. */
export function fileToWire(row: FileRow): FileReadWire {
  const created_at = iso(row.created_at);
  if (row.service === "product_media" || row.service === "organization_avatar")
    return { ...common(row), service: row.service, created_at, public_url: row.public_url ?? "" };
  return { ...common(row), service: "downloadable", created_at };
}

export function productMediaToWire(row: FileRow): ProductMediaWire {
  return {
    ...common(row),
    service: "product_media",
    created_at: iso(row.created_at),
    public_url: row.public_url ?? "",
  };
}
