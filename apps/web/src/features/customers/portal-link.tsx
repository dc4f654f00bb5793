import type { CustomerSessionWire } from "@kassa/contracts/v1";
import { Alert, Anchor, Button, Modal, Stack, Text } from "@mantine/core";
import { IconExternalLink } from "@tabler/icons-react";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { CopyValue } from "../../components/copy-value";
import { V1Error, v1 } from "../../lib/v1";
import { formatDate } from "../billing/format";

/**
 * "Portal link" on a customer's page: a customer session (`POST /v1/customer-sessions/`) and its
 * pre-authenticated link to the customer portal, to open or to send the customer (copied). The
 * link signs whoever opens it in as this customer until it expires, so it is made only when
 * asked and shown once, in the dialog.
 */
export function PortalLinkButton({
  organizationId,
  customerId,
  customerLabel,
}: {
  organizationId: string;
  customerId: string;
  customerLabel: string;
}) {
  const [opened, setOpened] = useState(false);
  const session = useMutation({
    mutationFn: () =>
      v1<CustomerSessionWire>(organizationId, "/customer-sessions/", {
        method: "POST",
        body: { customer_id: customerId },
      }),
  });
  const open = () => {
    setOpened(true);
    session.mutate();
  };
  const close = () => {
    setOpened(false);
    session.reset();
  };
  return (
    <>
      <Button variant="default" leftSection={<IconExternalLink size={16} />} onClick={open}>
        Portal link
      </Button>
      <Modal opened={opened} onClose={close} title="Customer portal link">
        <Stack gap="sm">
          {session.isPending && <Text size="sm">Making a link…</Text>}
          {session.isError && (
            <Alert color="red" title="No link was made">
              {session.error instanceof V1Error ? session.error.message : "The link could not be made."}
            </Alert>
          )}
          {session.data && (
            <>
              <Text size="sm">
                Whoever opens this link is signed in to the portal as {customerLabel} until{" "}
                {formatDate(session.data.expires_at)}: send it to the customer only.
              </Text>
              <CopyValue value={session.data.customer_portal_url} label="Copy the portal link" />
              <Anchor href={session.data.customer_portal_url} target="_blank" rel="noreferrer" size="sm">
                Open the portal as this customer
              </Anchor>
            </>
          )}
          <Button variant="default" onClick={close} style={{ alignSelf: "flex-end" }}>
            Done
          </Button>
        </Stack>
      </Modal>
    </>
  );
}
