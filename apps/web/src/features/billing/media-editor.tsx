import { ActionIcon, Alert, Button, FileButton, Group, Image, Paper, Stack, Text } from "@mantine/core";
import { IconArrowDown, IconArrowUp, IconPhotoPlus, IconTrash } from "@tabler/icons-react";
import { useState } from "react";
import {
  type FileCreate,
  type FileUpload,
  type FileUploadCompleted,
  type ProductMedia,
  V1Error,
  v1,
} from "../../lib/v1";

/**
 * Product images: each picked file goes through the files API from the browser (declare it as
 * `product_media` with its SHA-256, PUT its bytes to the URL Kassa signed, complete it with
 * the part's ETag), then shows as a thumbnail from its `public_url`. The editor keeps the
 * list in order; the product form sends the ids as `medias` when it saves.
 */

/** As the server's `IMAGE_TYPES` and `MAX_SIZE.product_media` (apps/server/src/modules/files/limits.ts). */
export const MEDIA_TYPES = ["image/jpeg", "image/png", "image/webp", "image/gif", "image/avif"];
export const MEDIA_MAX_BYTES = 10 * 1024 * 1024;

async function sha256Base64(bytes: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let binary = "";
  for (const b of digest) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Uploads one image in one part; resolves the completed file (with its `public_url`). */
export async function uploadMedia(organizationId: string, file: File): Promise<ProductMedia> {
  const bytes = await file.arrayBuffer();
  const checksum = await sha256Base64(bytes);
  const created = await v1<FileUpload>(organizationId, "/files/", {
    method: "POST",
    body: {
      name: file.name,
      mime_type: file.type,
      size: file.size,
      service: "product_media",
      checksum_sha256_base64: checksum,
      upload: {
        parts: [{ number: 1, chunk_start: 0, chunk_end: file.size, checksum_sha256_base64: checksum }],
      },
    } satisfies FileCreate,
  });
  const parts: FileUploadCompleted["parts"] = [];
  for (const part of created.upload.parts) {
    let res: Response;
    try {
      res = await fetch(part.url, {
        method: "PUT",
        headers: part.headers,
        body: bytes.slice(part.chunk_start, part.chunk_end),
      });
    } catch {
      throw new V1Error(
        0,
        undefined,
        "The server could not be reached. Check your connection and try again.",
      );
    }
    if (!res.ok) throw new V1Error(res.status, undefined, `The image's bytes were refused (${res.status}).`);
    parts.push({
      number: part.number,
      checksum_etag: res.headers.get("etag") ?? "",
      checksum_sha256_base64: part.checksum_sha256_base64,
    });
  }
  return v1<ProductMedia>(organizationId, `/files/${created.id}/uploaded`, {
    method: "POST",
    body: { id: created.upload.id, path: created.upload.path, parts } satisfies FileUploadCompleted,
  });
}

/** A refusal in words: a 422 names its field (`size`, `mime_type`, ...) as the forms do. */
function refusalOf(file: File, e: unknown): string {
  if (e instanceof V1Error) {
    const byField = e.fieldErrors();
    const entries = Object.entries(byField);
    if (entries.length) return `${file.name}: ${entries.map(([f, m]) => `${f}: ${m}`).join("; ")}`;
    return `${file.name}: ${e.message}`;
  }
  return `${file.name}: the upload failed.`;
}

/** Checks the browser can tell before uploading; the server checks again (and the bytes). */
function localRefusal(file: File): string | null {
  if (!MEDIA_TYPES.includes(file.type))
    return `${file.name}: only JPEG, PNG, WebP, GIF or AVIF images can be product media.`;
  if (file.size > MEDIA_MAX_BYTES) return `${file.name}: larger than 10 MB, the most an image may be.`;
  if (file.size === 0) return `${file.name}: the file is empty.`;
  return null;
}

export function MediaEditor({
  organizationId,
  medias,
  onChange,
  error,
  disabled,
}: {
  organizationId: string;
  medias: ProductMedia[];
  onChange: (next: ProductMedia[]) => void;
  error?: string | undefined;
  disabled?: boolean;
}) {
  const [uploading, setUploading] = useState(false);
  const [refusals, setRefusals] = useState<string[]>([]);

  const pick = async (files: File[]) => {
    setRefusals([]);
    setUploading(true);
    const added: ProductMedia[] = [];
    const failed: string[] = [];
    for (const file of files) {
      const local = localRefusal(file);
      if (local) {
        failed.push(local);
        continue;
      }
      try {
        added.push(await uploadMedia(organizationId, file));
      } catch (e) {
        failed.push(refusalOf(file, e));
      }
    }
    onChange([...medias, ...added]);
    setRefusals(failed);
    setUploading(false);
  };

  const move = (i: number, by: -1 | 1) => {
    const next = [...medias];
    const [m] = next.splice(i, 1);
    if (m) next.splice(i + by, 0, m);
    onChange(next);
  };

  return (
    <Stack gap="sm">
      {medias.length === 0 && (
        <Text size="sm" c="dimmed">
          No images yet. JPEG, PNG, WebP, GIF or AVIF, up to 10 MB each; the first is shown first.
        </Text>
      )}
      <Group gap="sm" align="flex-start">
        {medias.map((m, i) => (
          <Paper
            key={m.id}
            withBorder
            p={6}
            radius="md"
            aria-label={`Image ${i + 1}: ${m.name}`}
            role="group"
          >
            <Stack gap={4} align="center">
              <Image src={m.public_url} alt={m.name} w={120} h={120} fit="contain" radius="sm" />
              <Text size="xs" maw={120} truncate>
                {m.name}
              </Text>
              {!disabled && (
                <Group gap={4}>
                  <ActionIcon
                    variant="default"
                    aria-label={`Move ${m.name} earlier`}
                    disabled={i === 0}
                    onClick={() => move(i, -1)}
                  >
                    <IconArrowUp size={14} />
                  </ActionIcon>
                  <ActionIcon
                    variant="default"
                    aria-label={`Move ${m.name} later`}
                    disabled={i === medias.length - 1}
                    onClick={() => move(i, 1)}
                  >
                    <IconArrowDown size={14} />
                  </ActionIcon>
                  <ActionIcon
                    variant="default"
                    color="red"
                    aria-label={`Remove ${m.name}`}
                    onClick={() => onChange(medias.filter((x) => x.id !== m.id))}
                  >
                    <IconTrash size={14} />
                  </ActionIcon>
                </Group>
              )}
            </Stack>
          </Paper>
        ))}
      </Group>
      {!disabled && (
        <Group>
          <FileButton onChange={(files) => void pick(files)} accept={MEDIA_TYPES.join(",")} multiple>
            {(props) => (
              <Button
                {...props}
                variant="default"
                leftSection={<IconPhotoPlus size={16} />}
                loading={uploading}
              >
                Add images
              </Button>
            )}
          </FileButton>
        </Group>
      )}
      {refusals.length > 0 && (
        <Alert color="red" role="alert" title="Not uploaded">
          {refusals.map((r) => (
            <Text key={r} size="sm">
              {r}
            </Text>
          ))}
        </Alert>
      )}
      {error && (
        <Text c="red" size="sm">
          {error}
        </Text>
      )}
    </Stack>
  );
}
