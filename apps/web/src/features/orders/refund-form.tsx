import { zodResolver } from "@hookform/resolvers/zod";
import { MANUAL_REFUND_REASONS, RefundCreate } from "@kassa/contracts/v1";
import { Button, Checkbox, Stack, Text, Textarea } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useEffect, useMemo } from "react";
import { Controller, useForm } from "react-hook-form";
import { z } from "zod";
import { DialogActions } from "../../components/dialog-actions";
import { applyServerError, type FieldMap, refusalOf } from "../../lib/server-errors";
import type { Order } from "../../lib/v1";
import { checkedAgainst } from "../../lib/wire-form";
import { REFUND_REASON_LABELS } from "../billing/commerce";
import { FormRefusal, NumberField, SelectField } from "../billing/form";
import { formatMoney, fractionDigits, toMajor, toMinor } from "../billing/format";
import { refundableAmount, useCreateRefund } from "./queries";

/** The refund's fields checked before sending, in the form's words; the errors by the form's fields. */
export function validateRefund(
  draft: { reason: string | null; amount: number | undefined },
  max: number,
  currency: string,
): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!draft.reason) errors.reason = "Choose why you refund.";
  const minor = toMinor(draft.amount, currency);
  if (minor === undefined) errors.amount = "Enter the amount to refund.";
  else if (minor <= 0) errors.amount = "The amount must be more than zero.";
  else if (minor > max) errors.amount = `At most ${formatMoney(max, currency)} can be refunded.`;
  return errors;
}

const RefundFormShape = z.object({
  reason: z.enum(MANUAL_REFUND_REASONS).nullable(),
  full: z.boolean(),
  amount: z.number().optional(),
  comment: z.string(),
  revoke: z.boolean(),
});
export type RefundFormValues = z.output<typeof RefundFormShape>;

/** The request body of the refund of `order` (a full refund is the refundable amount). */
export function refundBody(order: Order, v: RefundFormValues): z.input<typeof RefundCreate> {
  const max = refundableAmount(order);
  return {
    order_id: order.id,
    // An empty reason is refused by the form's rule and the contract, at the field.
    reason: v.reason as z.input<typeof RefundCreate>["reason"],
    amount: (v.full ? max : toMinor(v.amount, order.currency)) as number,
    comment: v.comment.trim() || null,
    revoke_benefits: v.revoke,
  };
}

const FIELDS: FieldMap = {
  reason: "reason",
  amount: "amount",
  comment: "comment",
  revoke_benefits: "revoke",
};

/** Refunds `order`, in full or in part, with a reason; `onDone` when refunded or cancelled. */
export function RefundForm({
  order,
  organizationId,
  onDone,
}: {
  order: Order;
  organizationId: string;
  onDone: () => void;
}) {
  const create = useCreateRefund(organizationId);
  const max = refundableAmount(order);
  const maxMajor = toMajor(max, order.currency);
  const schema = useMemo(
    () =>
      checkedAgainst(
        RefundFormShape.superRefine((v, ctx) => {
          const amount = v.full ? maxMajor : v.amount;
          for (const [path, message] of Object.entries(
            validateRefund({ reason: v.reason, amount }, max, order.currency),
          ))
            ctx.addIssue({ code: "custom", path: [path], message });
        }),
        RefundCreate,
        (v) => refundBody(order, v),
        FIELDS,
      ),
    [order, max, maxMajor],
  );
  const {
    register,
    control,
    handleSubmit,
    setError,
    setValue,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<RefundFormValues>({
    resolver: zodResolver(schema),
    defaultValues: { reason: null, full: true, amount: undefined, comment: "", revoke: false },
  });
  const full = watch("full");
  // A full refund shows the refundable amount, and a partial one starts from it. Set rather
  // than a default value: an emptied field must stay empty (react-hook-form shows the default
  // value of a field set to `undefined`).
  useEffect(() => {
    if (full) setValue("amount", maxMajor);
  }, [full, maxMajor, setValue]);

  const submit = handleSubmit(async (values) => {
    try {
      await create.mutateAsync(refundBody(order, values));
      notifications.show({ color: "green", message: "Refund created." });
      onDone();
    } catch (e) {
      applyServerError(refusalOf(e), setError, {}, FIELDS);
    }
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <FormRefusal errors={errors} title="The refund was not made" />
        <Text size="sm">
          Refundable: <b>{formatMoney(max, order.currency)}</b> before tax (paid{" "}
          {formatMoney(order.total_amount, order.currency)}
          {order.refunded_amount > 0
            ? `, already refunded ${formatMoney(order.refunded_amount, order.currency)}`
            : ""}
          ). Tax is refunded in proportion.
        </Text>
        <SelectField
          control={control}
          name="reason"
          label="Reason"
          required
          placeholder="Choose a reason"
          data={MANUAL_REFUND_REASONS.map((r) => ({ value: r, label: REFUND_REASON_LABELS[r] }))}
        />
        <Controller
          control={control}
          name="full"
          render={({ field }) => (
            <Checkbox
              label={`Refund the whole ${formatMoney(max, order.currency)}`}
              checked={field.value}
              onChange={(e) => field.onChange(e.currentTarget.checked)}
            />
          )}
        />
        <NumberField
          control={control}
          name="amount"
          label={`Amount (${order.currency.toUpperCase()})`}
          description={`At most ${formatMoney(max, order.currency)}.`}
          required
          min={0}
          max={maxMajor}
          clampBehavior="none"
          decimalScale={fractionDigits(order.currency)}
          disabled={full}
          w={220}
        />
        <Textarea
          label="Internal comment"
          description="For your team; the customer does not see it."
          {...register("comment")}
          error={errors.comment?.message}
          rows={2}
        />
        <Controller
          control={control}
          name="revoke"
          render={({ field, fieldState }) => (
            <Checkbox
              label="Revoke the benefits the customer got with this order"
              description={
                order.subscription_id
                  ? "The benefits of a subscription end with the subscription: revoke it instead."
                  : undefined
              }
              checked={field.value}
              disabled={Boolean(order.subscription_id)}
              onChange={(e) => field.onChange(e.currentTarget.checked)}
              error={fieldState.error?.message}
            />
          )}
        />
        <DialogActions>
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" color="red" loading={isSubmitting}>
            Refund
          </Button>
        </DialogActions>
      </Stack>
    </form>
  );
}
