import { Alert, Button, Code, CopyButton, Group, Stack, Text } from "@mantine/core";

/** A secret shown once, with a copy button. */
export function OnceSecret({ label, value }: { label: string; value: string }) {
  return (
    <Alert color="yellow" title={label}>
      <Stack gap="xs">
        <Text size="sm">
          Copy it now: Kassa keeps only what it needs to check it and will not show it again.
        </Text>
        <Group gap="xs" wrap="nowrap">
          <Code block style={{ flex: 1, wordBreak: "break-all" }} data-testid="secret">
            {value}
          </Code>
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy}>
                {copied ? "Copied" : "Copy"}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  );
}
