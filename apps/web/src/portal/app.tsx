import {
  ActionIcon,
  Anchor,
  Avatar,
  Button,
  Center,
  Container,
  Group,
  Loader,
  Stack,
  Tabs,
  Text,
  Title,
  useComputedColorScheme,
  useMantineColorScheme,
} from "@mantine/core";
import { IconMoon, IconSun } from "@tabler/icons-react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useDocumentTitle } from "../components/document-title";
import { getOrganization, type OrganizationData, type PortalCustomer, portalClient, V1Error } from "./api";
import { BenefitsSection } from "./benefits";
import { BillingSection } from "./billing";
import { OrderList } from "./orders";
import { storeToken, takeLinkToken } from "./session";
import { SignIn } from "./sign-in";
import { SubscriptionCard } from "./subscriptions";
import { UsageSection } from "./usage";
import { useLoad } from "./use-load";

const SECTIONS = ["overview", "orders", "subscriptions", "benefits", "usage", "billing"] as const;
type Section = (typeof SECTIONS)[number];
const LABELS: Record<Section, string> = {
  overview: "Overview",
  orders: "Orders",
  subscriptions: "Subscriptions",
  benefits: "Benefits",
  usage: "Usage",
  billing: "Billing",
};

/** `/portal/{slug}` and `/portal/{slug}/{section}`. */
export function parsePortalPath(pathname: string): { slug: string; section: Section } | null {
  const m = /^\/portal\/([^/]+)(?:\/([^/]+))?\/?$/.exec(pathname);
  if (!m) return null;
  let slug: string;
  try {
    slug = decodeURIComponent(m[1] ?? "");
  } catch {
    return null;
  }
  const section = (SECTIONS as readonly string[]).includes(m[2] ?? "") ? (m[2] as Section) : "overview";
  return { slug, section };
}

function Centered({ children }: { children: React.ReactNode }) {
  return (
    <Center mih="80dvh" p="md">
      <Stack align="center" gap="sm" maw={440} ta="center">
        {children}
      </Stack>
    </Center>
  );
}

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme("light");
  return (
    <ActionIcon
      variant="subtle"
      color="gray"
      aria-label={computed === "dark" ? "Light theme" : "Dark theme"}
      onClick={() => setColorScheme(computed === "dark" ? "light" : "dark")}
    >
      {computed === "dark" ? <IconSun size={18} /> : <IconMoon size={18} />}
    </ActionIcon>
  );
}

export function PortalApp({ location }: { location: Pick<Location, "pathname" | "search" | "hash"> }) {
  const route = useMemo(() => parsePortalPath(location.pathname), [location.pathname]);
  const [org, setOrg] = useState<
    | { state: "loading" }
    | { state: "missing" }
    | { state: "error"; message: string }
    | { state: "ready"; data: OrganizationData }
  >({ state: "loading" });
  const [token, setToken] = useState<string | null>(() =>
    route ? takeLinkToken(route.slug, location) : null,
  );
  const slug = route?.slug;
  useDocumentTitle(
    org.state === "ready" ? `${org.data.organization.name} · Customer portal` : "Customer portal",
  );

  useEffect(() => {
    if (!slug) return;
    let live = true;
    getOrganization(slug).then(
      (data) => live && setOrg({ state: "ready", data }),
      (e: unknown) =>
        live &&
        setOrg(
          e instanceof V1Error && e.status === 404
            ? { state: "missing" }
            : { state: "error", message: e instanceof Error ? e.message : "Could not load." },
        ),
    );
    return () => {
      live = false;
    };
  }, [slug]);

  const signIn = useCallback(
    (t: string | null) => {
      if (slug) storeToken(slug, t);
      setToken(t);
    },
    [slug],
  );

  if (!route || org.state === "missing")
    return (
      <Centered>
        <Title order={1} size="h2">
          Portal not found
        </Title>
        <Text c="dimmed">
          There is no customer portal at this address. Check the link the seller sent you.
        </Text>
      </Centered>
    );
  if (org.state === "loading")
    return (
      <Center mih="60dvh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (org.state === "error")
    return (
      <Centered>
        <Title order={1} size="h2">
          The portal could not be shown
        </Title>
        <Text c="dimmed">{org.message}</Text>
        <Button variant="light" onClick={() => window.location.reload()}>
          Try again
        </Button>
      </Centered>
    );
  const organization = org.data.organization;
  return (
    <Container size={760} py="lg" px="md">
      <Stack gap="lg">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Avatar src={organization.avatar_url} alt="" radius="md">
              {organization.name.charAt(0).toUpperCase()}
            </Avatar>
            <Text fw={600} data-testid="organization-name">
              {organization.name}
            </Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <ColorSchemeToggle />
            {token && (
              <Button variant="subtle" size="xs" onClick={() => signIn(null)}>
                Sign out
              </Button>
            )}
          </Group>
        </Group>
        {token ? (
          <SignedIn
            key={token}
            token={token}
            data={org.data}
            initialSection={route.section}
            onExpired={() => signIn(null)}
          />
        ) : (
          <SignIn
            organization={organization}
            initialEmail={new URLSearchParams(location.search).get("email") ?? undefined}
            onSignedIn={(t) => signIn(t)}
          />
        )}
        <Text size="xs" c="dimmed" ta="center">
          Powered by Kassa
        </Text>
      </Stack>
    </Container>
  );
}

function SignedIn({
  token,
  data,
  initialSection,
  onExpired,
}: {
  token: string;
  data: OrganizationData;
  initialSection: Section;
  onExpired: () => void;
}) {
  const client = useMemo(() => portalClient(token), [token]);
  const [section, setSection] = useState<Section>(initialSection);
  const [customer, setCustomer] = useState<PortalCustomer | null>(null);
  const me = useLoad(() => client.me(), onExpired, [client]);
  const subscriptions = useLoad(() => client.subscriptions(), onExpired, [client]);
  const orders = useLoad(() => client.orders(), onExpired, [client]);
  const current = customer ?? (me.state === "ready" ? me.data : null);

  const go = (next: Section) => {
    setSection(next);
    const base = `/portal/${encodeURIComponent(data.organization.slug)}`;
    window.history.pushState(null, "", next === "overview" ? base : `${base}/${next}`);
  };
  useEffect(() => {
    const onPop = () => setSection(parsePortalPath(window.location.pathname)?.section ?? "overview");
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);

  if (me.state === "loading" || !current)
    return me.state === "error" ? (
      <Text c="red">{me.message}</Text>
    ) : (
      <Center mih="40dvh">
        <Loader aria-label="Loading" />
      </Center>
    );

  const subs = subscriptions.state === "ready" ? subscriptions.data.items : [];
  const live = subs.filter((s) => ["active", "trialing", "past_due"].includes(s.status));
  const subList = (list: typeof subs, empty: string) =>
    subscriptions.state === "loading" ? (
      <Loader size="sm" aria-label="Loading" />
    ) : subscriptions.state === "error" ? (
      <Text c="red">{subscriptions.message}</Text>
    ) : list.length === 0 ? (
      <Text size="sm" c="dimmed">
        {empty}
      </Text>
    ) : (
      <Stack gap="sm">
        {list.map((s) => (
          <SubscriptionCard
            key={s.id}
            subscription={s}
            client={client}
            data={data}
            onChanged={subscriptions.reload}
          />
        ))}
      </Stack>
    );
  const orderList = (limit?: number) =>
    orders.state === "loading" ? (
      <Loader size="sm" aria-label="Loading" />
    ) : orders.state === "error" ? (
      <Text c="red">{orders.message}</Text>
    ) : (
      <OrderList orders={limit ? orders.data.items.slice(0, limit) : orders.data.items} client={client} />
    );

  return (
    <Stack gap="md">
      <Stack gap={2}>
        <Title order={1} size="h2">
          {current.name ? `Hello ${current.name}` : "Your account"}
        </Title>
        <Text size="sm" c="dimmed">
          {current.email}
        </Text>
      </Stack>
      <Tabs value={section} onChange={(v) => v && go(v as Section)} keepMounted={false}>
        <Tabs.List style={{ flexWrap: "nowrap", overflowX: "auto" }}>
          {SECTIONS.map((s) => (
            <Tabs.Tab key={s} value={s}>
              {LABELS[s]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="overview" pt="md">
          <Stack gap="lg">
            <Stack gap="sm">
              <Title order={2} size="h4">
                Active subscriptions
              </Title>
              {subList(live, "You have no active subscription.")}
            </Stack>
            <Stack gap="sm">
              <Group justify="space-between">
                <Title order={2} size="h4">
                  Recent orders
                </Title>
                <Anchor component="button" size="sm" onClick={() => go("orders")}>
                  All orders
                </Anchor>
              </Group>
              {orderList(3)}
            </Stack>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="orders" pt="md">
          {orderList()}
        </Tabs.Panel>
        <Tabs.Panel value="subscriptions" pt="md">
          {subList(subs, "You have no subscription.")}
        </Tabs.Panel>
        <Tabs.Panel value="benefits" pt="md">
          <BenefitsSection client={client} organizationId={data.organization.id} onExpired={onExpired} />
        </Tabs.Panel>
        <Tabs.Panel value="usage" pt="md">
          <UsageSection client={client} onExpired={onExpired} />
        </Tabs.Panel>
        <Tabs.Panel value="billing" pt="md">
          <BillingSection
            client={client}
            customer={current}
            currency={subs[0]?.currency ?? "usd"}
            onExpired={onExpired}
            onCustomer={setCustomer}
          />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
