import { Alert, Button, Group, Modal, Stack, Text } from "@mantine/core";
import { type ReactNode, useState } from "react";
import type { ServerError } from "../lib/auth-client";
import { serverErrorMessage } from "../lib/server-errors";

/**
 * Asks before a destructive action. `onConfirm` resolves with what went wrong (an error
 * message, or the server's refusal, shown in its words) and the dialog stays open; or with
 * null when it succeeded, and the dialog closes.
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
  onConfirm: () => Promise<string | ServerError | null>;
}) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setError(null);
    onClose();
  };
  const confirm = async () => {
    setPending(true);
    setError(null);
    const failure = await onConfirm();
    setPending(false);
    if (failure) setError(typeof failure === "string" ? failure : serverErrorMessage(failure));
    else close();
  };
  return (
    <Modal opened={opened} onClose={close} title={title} centered>
      <Stack gap="md">
        <Text size="sm" component="div">
          {children}
        </Text>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={close} disabled={pending}>
            Cancel
          </Button>
          <Button color="red" onClick={() => void confirm()} loading={pending}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
