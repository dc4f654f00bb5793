import { Alert, Button, Loader, Modal, Radio, Select, SimpleGrid, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Controller, useForm } from "react-hook-form";
import { DialogActions } from "../../components/dialog-actions";
import type { ServerError } from "../../lib/auth-client";
import { serverErrorMessage } from "../../lib/server-errors";
import { type Subscription, V1Error } from "../../lib/v1";
import { formatRecurring } from "../billing/commerce";
import { PreviewOrderCard } from "./preview";
import {
  type ProrationBehavior,
  recurringProductsQuery,
  subscriptionPreviewQuery,
  useUpdateSubscription,
} from "./queries";

interface PlanValues {
  product_id: string | null;
  proration_behavior: ProrationBehavior;
}

const PRORATION_LABELS: Record<ProrationBehavior, { label: string; description: string }> = {
  prorate: {
    label: "Prorate on the next invoice",
    description: "The difference for the rest of the period is added to (or taken off) the next renewal.",
  },
  invoice: {
    label: "Invoice the difference now",
    description: "The customer is charged the difference for the rest of the period at once.",
  },
};

/**
 * Moves a subscription to another recurring product: the product, how the rest of the period
 * is settled (prorated on the next invoice, or invoiced now), and the server's preview of what
 * is charged now and at the next renewal, before the merchant confirms.
 */
export function ChangePlanDialog({
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
  const products = useQuery({
    ...recurringProductsQuery(organizationId),
    enabled: opened && organizationId !== "",
  });
  const { control, handleSubmit, setError, formState, reset, watch } = useForm<PlanValues>({
    defaultValues: { product_id: null, proration_behavior: "prorate" },
  });
  const productId = watch("product_id");
  const proration = watch("proration_behavior");
  const change = productId ? { product_id: productId, proration_behavior: proration } : null;
  const preview = useQuery({
    ...subscriptionPreviewQuery(organizationId, subscription.id, change),
    enabled: opened && change !== null,
  });
  const close = () => {
    reset();
    update.reset();
    onClose();
  };
  const submit = handleSubmit(async (values) => {
    if (!values.product_id) {
      setError("product_id", { type: "required", message: "Choose the product to move to." });
      return;
    }
    try {
      await update.mutateAsync({
        product_id: values.product_id,
        proration_behavior: values.proration_behavior,
      });
      close();
    } catch (error) {
      const onProduct = error instanceof V1Error ? error.fieldErrors().product_id : undefined;
      if (onProduct) setError("product_id", { type: "server", message: onProduct }, { shouldFocus: true });
      else setError("root.server", { type: "server", message: serverErrorMessage(error as ServerError) });
    }
  });
  const options = (products.data ?? [])
    .filter((p) => p.id !== subscription.product_id)
    .map((p) => {
      const price = p.prices.find((x) => !x.is_archived && x.amount_type === "fixed");
      const interval = p.recurring_interval ?? subscription.recurring_interval;
      const suffix =
        price?.amount_type === "fixed"
          ? ` (${formatRecurring(price.price_amount, price.price_currency, interval)})`
          : "";
      return { value: p.id, label: `${p.name}${suffix}` };
    });

  return (
    <Modal opened={opened} onClose={close} title="Change plan" size="lg" centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            Now on {subscription.product.name}. The new plan starts at once; the period keeps its dates.
          </Text>
          <Controller
            control={control}
            name="product_id"
            render={({ field, fieldState }) => (
              <Select
                label="New product"
                placeholder={products.isPending ? "Loading the products…" : "Choose a recurring product"}
                searchable
                data={options}
                value={field.value}
                onChange={field.onChange}
                error={fieldState.error?.message}
                nothingFoundMessage="No other recurring product"
                withAsterisk
              />
            )}
          />
          <Controller
            control={control}
            name="proration_behavior"
            render={({ field }) => (
              <Radio.Group label="The rest of this period" value={field.value} onChange={field.onChange}>
                <Stack gap="xs" mt={4}>
                  {(Object.keys(PRORATION_LABELS) as ProrationBehavior[]).map((b) => (
                    <Radio
                      key={b}
                      value={b}
                      label={PRORATION_LABELS[b].label}
                      description={PRORATION_LABELS[b].description}
                    />
                  ))}
                </Stack>
              </Radio.Group>
            )}
          />
          {change &&
            (preview.isPending ? (
              <Loader size="sm" aria-label="Loading the preview" />
            ) : preview.isError ? (
              <Alert color="red" variant="light" title="No preview">
                {serverErrorMessage(preview.error as unknown as ServerError)}
              </Alert>
            ) : preview.data ? (
              <SimpleGrid cols={{ base: 1, sm: 2 }} aria-label="Preview of the change">
                <PreviewOrderCard
                  title="Charged now"
                  order={preview.data.now}
                  none="Nothing is charged now."
                />
                <PreviewOrderCard
                  title="Next renewal"
                  order={preview.data.next_renewal}
                  none="No renewal is planned."
                />
              </SimpleGrid>
            ) : (
              <Text size="sm" c="dimmed">
                This server cannot preview a change yet: the amounts show on the orders once it is made.
              </Text>
            ))}
          {formState.errors.root?.server && (
            <Alert color="red" role="alert" title="The plan was not changed">
              <Text size="sm">{formState.errors.root.server.message}</Text>
            </Alert>
          )}
          <DialogActions>
            <Button variant="default" onClick={close} disabled={formState.isSubmitting}>
              Cancel
            </Button>
            <Button type="submit" loading={formState.isSubmitting}>
              Change plan
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}
