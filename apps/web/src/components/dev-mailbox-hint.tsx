import { Anchor, Text } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { usePublicConfig } from "../lib/queries";

/** Where a just-sent mail went when the server has no SMTP: the development mailbox. */
export function DevMailboxHint() {
  const config = usePublicConfig();
  if (!config.data?.devMailbox) return null;
  return (
    <Text size="sm">
      No mail server is configured: the mail is in the{" "}
      <Anchor component={Link} to="/dev/mailbox">
        development mailbox
      </Anchor>
      .
    </Text>
  );
}
