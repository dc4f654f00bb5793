import { Button, Code, CopyButton, Group } from "@mantine/core";

/**
 * A secret the customer needs to paste elsewhere (a license key), shown in full with a button
 * that copies it. Used by the customer portal and the checkout's confirmation page.
 */
export function CopyValue({ value, label, testId }: { value: string; label: string; testId?: string }) {
  return (
    <Group gap="xs" wrap="nowrap" align="center">
      <Code
        data-testid={testId}
        style={{ overflowWrap: "anywhere", fontSize: "var(--mantine-font-size-sm)" }}
      >
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button
            style={{ flexShrink: 0 }}
            size="compact-xs"
            variant={copied ? "light" : "default"}
            color={copied ? "teal" : undefined}
            onClick={copy}
            aria-label={copied ? "Copied" : label}
          >
            {copied ? "Copied" : "Copy"}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
