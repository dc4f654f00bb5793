import { Alert, Button, Group, Modal, Stack, Text } from "@mantine/core";
import { type ReactNode, useState } from "react";
import type { ServerError } from "../lib/auth-client";
import { serverErrorMessage } from "../lib/server-errors";

/**
 * A destructive action, confirmed. The server's refusal stays in the dialog, in its words;
 * success closes it.
 */
export function ConfirmDialog({
  opened,
  onClose,
  title,
  children,
  confirmLabel,
  onConfirm,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<ServerError | null>;
}) {
  const [pending, setPending] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const close = () => {
    setRefusal(null);
    onClose();
  };
  const confirm = async () => {
    setPending(true);
    setRefusal(null);
    const error = await onConfirm();
    setPending(false);
    if (error) setRefusal(serverErrorMessage(error));
    else close();
  };
  return (
    <Modal opened={opened} onClose={close} title={title} centered>
      <Stack gap="md">
        {refusal && (
          <Alert color="red" role="alert" title="The server refused">
            {refusal}
          </Alert>
        )}
        <Text size="sm" component="div">
          {children}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button color="red" loading={pending} onClick={() => void confirm()} data-autofocus>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
