import { Group, Paper, Progress, Stack, Text, ThemeIcon, Title } from "@mantine/core";
import { IconCheck, IconCircleDashed } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { AnchorLink } from "../../components/links";
import {
  anyCheckoutLinkQuery,
  anyProductQuery,
  anyWebhookEndpointQuery,
  paymentsConfigQuery,
} from "./queries";

type Step = {
  key: "product" | "checkout-link" | "webhook" | "stripe";
  label: string;
  /** What to do, in a sentence. */
  hint: string;
  done: boolean | undefined;
  link?: {
    to:
      | "/dashboard/$slug/products/new"
      | "/dashboard/$slug/checkout-links"
      | "/dashboard/$slug/settings/webhooks";
    text: string;
  };
};

/**
 * The first steps of a new organization, each ticked from what exists: a product, a checkout
 * link, a webhook endpoint, and Stripe taking the payments (the server's processor, which its
 * environment decides). Gone once every step is done.
 */
export function OnboardingChecklist({ organizationId, slug }: { organizationId: string; slug: string }) {
  // A list that could not be read counts as not done (the step's link leads to its page).
  const count = (q: { data?: { pagination: { total_count: number } }; isError: boolean }) =>
    q.isError ? false : q.data ? q.data.pagination.total_count > 0 : undefined;
  const products = useQuery(anyProductQuery(organizationId));
  const links = useQuery(anyCheckoutLinkQuery(organizationId));
  const webhooks = useQuery(anyWebhookEndpointQuery(organizationId));
  const payments = useQuery(paymentsConfigQuery);

  const steps: Step[] = [
    {
      key: "product",
      label: "Create a product",
      hint: "A one-time or recurring price, and the benefits it grants.",
      done: count(products),
      link: { to: "/dashboard/$slug/products/new", text: "Create a product" },
    },
    {
      key: "checkout-link",
      label: "Share a checkout link",
      hint: "A link to your hosted checkout that you can put on your site or send to buyers.",
      done: count(links),
      link: { to: "/dashboard/$slug/checkout-links", text: "Create a checkout link" },
    },
    {
      key: "webhook",
      label: "Add a webhook",
      hint: "Your server hears about orders and subscriptions as they happen.",
      done: count(webhooks),
      link: { to: "/dashboard/$slug/settings/webhooks", text: "Add an endpoint" },
    },
    {
      key: "stripe",
      label: "Go live with Stripe",
      hint: 'Payments are simulated in the sandbox until the server runs with the STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PUBLISHABLE_KEY of your Stripe account (the README\'s "Payments: going live with Stripe").',
      done: payments.isError ? false : payments.data ? payments.data.processor === "stripe" : undefined,
    },
  ];
  // Not drawn until every step is known, so a finished organization never sees it flash.
  if (steps.some((s) => s.done === undefined)) return null;
  const done = steps.filter((s) => s.done).length;
  if (done === steps.length) return null;

  return (
    <Paper withBorder radius="md" p="md" role="region" aria-label="Get started">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            Get started
          </Title>
          <Text size="sm" c="dimmed">
            {done} of {steps.length} done
          </Text>
        </Group>
        <Progress value={(done / steps.length) * 100} size="sm" aria-hidden />
        <Stack gap="xs" component="ul" m={0} p={0} style={{ listStyle: "none" }}>
          {steps.map((s) => (
            <Group
              key={s.key}
              component="li"
              gap="sm"
              wrap="nowrap"
              align="flex-start"
              data-step={s.key}
              data-done={s.done ? "true" : "false"}
              aria-label={`${s.label}: ${s.done ? "done" : "to do"}`}
            >
              <ThemeIcon
                size={24}
                radius="xl"
                variant={s.done ? "filled" : "light"}
                color={s.done ? "teal" : "gray"}
              >
                {s.done ? <IconCheck size={14} aria-hidden /> : <IconCircleDashed size={14} aria-hidden />}
              </ThemeIcon>
              <Stack gap={0} miw={0}>
                <Text fw={600} size="sm" td={s.done ? "line-through" : undefined}>
                  {s.label}
                </Text>
                {!s.done && (
                  <Text size="sm" c="dimmed">
                    {s.hint}{" "}
                    {s.link && (
                      <AnchorLink to={s.link.to} params={{ slug }} size="sm">
                        {s.link.text}
                      </AnchorLink>
                    )}
                  </Text>
                )}
              </Stack>
            </Group>
          ))}
        </Stack>
      </Stack>
    </Paper>
  );
}
