/**
 * What each kind of file may be. Product media and organization avatars are shown to
 * browsers on public URLs, so they are images of a few raster types only (no SVG: it can
 * carry script); downloadables are handed out as attachments, so any type will do.
 */
import { FILE_SERVICES, type FileService, MAX_PARTS, MIME_TYPE } from "@kassa/contracts/v1";

export { FILE_SERVICES, type FileService, MAX_PARTS, MIME_TYPE };

export const IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp", "image/gif", "image/avif"] as const;

const MB = 1024 * 1024;

/** Largest file per service, in bytes. */
export const MAX_SIZE: Record<FileService, number> = {
  product_media: 10 * MB,
  organization_avatar: 10 * MB,
  downloadable: 1024 * MB,
};

export function isPublicService(service: string): boolean {
  return service === "product_media" || service === "organization_avatar";
}

export function allowedTypes(service: FileService): readonly string[] | undefined {
  return isPublicService(service) ? IMAGE_TYPES : undefined;
}

/**
 * Whether the first bytes of a file are an image of the declared type. A public image URL
 * serves what was uploaded under the declared type; checking the bytes keeps an HTML page
 * from being published as `image/png`.
 */
export function looksLike(mimeType: string, head: Buffer): boolean {
  const ascii = (start: number, end: number) => head.subarray(start, end).toString("latin1");
  switch (mimeType.toLowerCase()) {
    case "image/jpeg":
      return head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
    case "image/png":
      return head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case "image/gif":
      return ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a";
    case "image/webp":
      return ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP";
    case "image/avif":
      return ascii(4, 8) === "ftyp" && (ascii(8, 12) === "avif" || ascii(8, 12) === "avis");
    default:
      return true;
  }
}

/** `1.5 MB`, as people read sizes (binary multiples, Polar's labels). */
export function sizeReadable(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${Number(value.toFixed(1))} ${units[unit]}`;
}
