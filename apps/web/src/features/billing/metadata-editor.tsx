import { ActionIcon, Button, Group, Stack, Text, TextInput } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import type { Metadata } from "../../lib/v1";

export type MetadataRow = { key: string; value: string };

export const rowsOf = (m: Metadata | undefined): MetadataRow[] =>
  Object.entries(m ?? {}).map(([key, value]) => ({ key, value: String(value) }));

export const metadataOf = (rows: MetadataRow[]): Record<string, string> =>
  Object.fromEntries(rows.filter((r) => r.key.trim() !== "").map((r) => [r.key.trim(), r.value]));

/** Metadata as key/value rows (the API keeps up to 50 keys of 40 characters, values of 500). */
export function MetadataEditor({
  rows,
  onChange,
  error,
  disabled,
}: {
  rows: MetadataRow[];
  onChange: (rows: MetadataRow[]) => void;
  error?: string;
  disabled?: boolean;
}) {
  return (
    <Stack gap="xs" role="group" aria-label="Metadata">
      <Text size="sm" fw={500}>
        Metadata
      </Text>
      {rows.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place
        <Group key={i} gap="xs">
          <TextInput
            aria-label={`Metadata key ${i + 1}`}
            placeholder="key"
            value={r.key}
            maxLength={40}
            onChange={(e) =>
              onChange(rows.map((x, j) => (j === i ? { ...x, key: e.currentTarget.value } : x)))
            }
            disabled={disabled}
          />
          <TextInput
            aria-label={`Metadata value ${i + 1}`}
            placeholder="value"
            value={r.value}
            maxLength={500}
            onChange={(e) =>
              onChange(rows.map((x, j) => (j === i ? { ...x, value: e.currentTarget.value } : x)))
            }
            disabled={disabled}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={`Remove metadata ${r.key || i + 1}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
            disabled={disabled}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      {error && (
        <Text c="red" size="sm">
          {error}
        </Text>
      )}
      {!disabled && (
        <Button
          size="xs"
          variant="subtle"
          leftSection={<IconPlus size={14} />}
          onClick={() => onChange([...rows, { key: "", value: "" }])}
          w="fit-content"
        >
          Add metadata
        </Button>
      )}
    </Stack>
  );
}
