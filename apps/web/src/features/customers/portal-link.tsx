import type { CustomerSessionMailedWire, CustomerSessionWire } from "@kassa/contracts/v1";
import { Alert, Anchor, Button, Group, Modal, Stack, Text } from "@mantine/core";
import { IconExternalLink, IconMailFast } from "@tabler/icons-react";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { CopyValue } from "../../components/copy-value";
import { V1Error, v1 } from "../../lib/v1";
import { formatDate } from "../billing/format";

/**
 * "Portal link" on a customer's page: a customer session (`POST /v1/customer-sessions/`) and its
 * pre-authenticated link to the customer portal, to open or to send the customer (copied). The
 * link signs whoever opens it in as this customer until it expires, so it is made only when
 * asked and shown once, in the dialog. "Send by e-mail" mails the customer a link of their own
 * (`POST /v1/customer-sessions/email`), whose token the dashboard never sees.
 */
export function PortalLinkButton({
  organizationId,
  customerId,
  customerLabel,
  customerEmail,
}: {
  organizationId: string;
  customerId: string;
  customerLabel: string;
  customerEmail: string;
}) {
  const [opened, setOpened] = useState(false);
  const session = useMutation({
    mutationFn: () =>
      v1<CustomerSessionWire>(organizationId, "/customer-sessions/", {
        method: "POST",
        body: { customer_id: customerId },
      }),
  });
  const mail = useMutation({
    mutationFn: () =>
      v1<CustomerSessionMailedWire>(organizationId, "/customer-sessions/email", {
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
    mail.reset();
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
          {/* No Divider here: importing it moves Mantine's Divider into the sign-in route's chunks. */}
          <Text size="sm">
            Or mail {customerLabel} a link of their own at {customerEmail}, valid for an hour.
          </Text>
          {mail.data ? (
            <Alert color="green" title="Sent">
              The portal link is on its way to {mail.data.email}. It works until{" "}
              {formatDate(mail.data.expires_at)}.
            </Alert>
          ) : (
            <Group>
              <Button
                variant="light"
                leftSection={<IconMailFast size={16} />}
                loading={mail.isPending}
                onClick={() => mail.mutate()}
              >
                Send by e-mail
              </Button>
            </Group>
          )}
          {mail.isError && (
            <Alert color="red" title="Not sent">
              {mail.error instanceof V1Error ? mail.error.message : "The link could not be sent."}
            </Alert>
          )}
          <Button variant="default" onClick={close} style={{ alignSelf: "flex-end" }}>
            Done
          </Button>
        </Stack>
      </Modal>
    </>
  );
}
