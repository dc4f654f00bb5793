import { Alert, Button, Modal, Radio, Select, Stack, Text, Textarea } from "@mantine/core";
import { Controller, useForm } from "react-hook-form";
import { DialogActions } from "../../components/dialog-actions";
import type { ServerError } from "../../lib/auth-client";
import { formatDate } from "../../lib/format";
import { serverErrorMessage } from "../../lib/server-errors";
import { CANCELLATION_REASONS, type Subscription } from "../../lib/v1";
import { CANCELLATION_REASON_LABELS } from "./lifecycle";
import { type CancellationReason, type SubscriptionUpdateBody, useUpdateSubscription } from "./queries";

interface CancelValues {
  when: "period_end" | "now";
  reason: CancellationReason | null;
  comment: string;
}

/** The body of a cancellation: at the period's end (`cancel_at_period_end`) or now (`revoke`). */
export function cancellationBody(values: CancelValues): SubscriptionUpdateBody {
  const reason = {
    ...(values.reason ? { customer_cancellation_reason: values.reason } : {}),
    ...(values.comment.trim() ? { customer_cancellation_comment: values.comment.trim() } : {}),
  };
  return values.when === "now" ? { revoke: true, ...reason } : { cancel_at_period_end: true, ...reason };
}

/**
 * Cancels a subscription: at the end of its period (it keeps its benefits until then, and the
 * customer may be won back with "Uncancel") or now (revoked: it ends at once, nothing is
 * refunded), with the customer's reason and comment. The server's refusal shows in the dialog.
 */
export function CancelSubscriptionDialog({
  organizationId,
  subscription,
  opened,
  onClose,
}: {
  organizationId: string;
  subscription: Subscription;
  opened: boolean;
  onClose: () => void;
}) {
  const update = useUpdateSubscription(organizationId, subscription.id);
  const form = useForm<CancelValues>({ defaultValues: { when: "period_end", reason: null, comment: "" } });
  const { control, handleSubmit, setError, formState, reset, register } = form;
  const close = () => {
    reset();
    update.reset();
    onClose();
  };
  const submit = handleSubmit(async (values) => {
    try {
      await update.mutateAsync(cancellationBody(values));
      close();
    } catch (error) {
      setError("root.server", { type: "server", message: serverErrorMessage(error as ServerError) });
    }
  });
  const periodEnd = formatDate(subscription.current_period_end);

  return (
    <Modal opened={opened} onClose={close} title="Cancel subscription" centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="md">
          <Controller
            control={control}
            name="when"
            render={({ field }) => (
              <Radio.Group label="When" value={field.value} onChange={field.onChange}>
                <Stack gap="xs" mt={4}>
                  <Radio
                    value="period_end"
                    label={`At the end of the period (${periodEnd})`}
                    description="The customer keeps access until then; you may take the cancellation back."
                  />
                  <Radio
                    value="now"
                    label="Now (revoke)"
                    description="It ends at once and is not renewed. Nothing is refunded."
                  />
                </Stack>
              </Radio.Group>
            )}
          />
          <Controller
            control={control}
            name="reason"
            render={({ field }) => (
              <Select
                label="Reason"
                placeholder="No reason given"
                clearable
                data={CANCELLATION_REASONS.map((r) => ({
                  value: r,
                  label: CANCELLATION_REASON_LABELS[r] ?? r,
                }))}
                value={field.value}
                onChange={(v) => field.onChange(v as CancellationReason | null)}
              />
            )}
          />
          <Textarea
            label="Comment"
            description="What the customer said, for your records."
            rows={3}
            maxLength={2000}
            error={formState.errors.comment?.message}
            {...register("comment", { maxLength: { value: 2000, message: "At most 2000 characters." } })}
          />
          {formState.errors.root?.server && (
            <Alert color="red" role="alert" title="The subscription was not canceled">
              <Text size="sm">{formState.errors.root.server.message}</Text>
            </Alert>
          )}
          <DialogActions>
            <Button variant="default" onClick={close} disabled={formState.isSubmitting}>
              Keep it
            </Button>
            <Button type="submit" color="red" loading={formState.isSubmitting}>
              Cancel subscription
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}
