import { v1 } from "../../lib/v1";

interface CreatedFile {
  id: string;
  upload: { id: string; path: string; parts: { number: number; url: string }[] };
}

/**
 * Uploads a file for a downloadables benefit through the files API, as a buyer's download
 * will be served: declare it (one part), PUT its bytes to the signed part URL, then complete
 * the upload with the part's ETag. Answers the file's id.
 */
export async function uploadDownloadable(organizationId: string, file: File): Promise<string> {
  const created = await v1<CreatedFile>(organizationId, "/files/", {
    method: "POST",
    body: {
      name: file.name,
      mime_type: file.type || "application/octet-stream",
      size: file.size,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: file.size }] },
      service: "downloadable",
    },
  });
  const part = created.upload.parts[0];
  if (!part) throw new Error("The server gave no upload URL.");
  const put = await fetch(part.url, { method: "PUT", body: file });
  if (!put.ok) throw new Error(`The upload of ${file.name} failed (${put.status}).`);
  await v1(organizationId, `/files/${created.id}/uploaded`, {
    method: "POST",
    body: {
      id: created.upload.id,
      path: created.upload.path,
      parts: [{ number: 1, checksum_etag: put.headers.get("etag"), checksum_sha256_base64: null }],
    },
  });
  return created.id;
}
