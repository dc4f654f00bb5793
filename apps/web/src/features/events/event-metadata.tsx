import { ActionIcon, Code, Group, Stack, Text } from "@mantine/core";
import { IconChevronDown, IconChevronRight } from "@tabler/icons-react";
import { useState } from "react";

const compactValue = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** `key=value` pairs on one line, cut short: the row stays one line until it is expanded. */
export function compactMetadata(metadata: Record<string, unknown>, max = 80): string {
  const text = Object.entries(metadata)
    .map(([k, v]) => `${k}=${compactValue(v)}`)
    .join(" · ");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An event's metadata, compact; the chevron shows all of it as JSON. */
export function EventMetadata({ metadata, label }: { metadata: Record<string, unknown>; label: string }) {
  const [open, setOpen] = useState(false);
  if (Object.keys(metadata).length === 0)
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Stack gap={4}>
      <Group gap={4} wrap="nowrap">
        <ActionIcon
          variant="subtle"
          size="sm"
          aria-expanded={open}
          aria-label={`${open ? "Hide" : "Show"} the metadata of ${label}`}
          onClick={() => setOpen(!open)}
        >
          {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
        </ActionIcon>
        <Text size="sm" ff="monospace" truncate maw={360}>
          {compactMetadata(metadata)}
        </Text>
      </Group>
      {open && <Code block>{JSON.stringify(metadata, null, 2)}</Code>}
    </Stack>
  );
}
