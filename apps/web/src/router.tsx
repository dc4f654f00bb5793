import { Anchor, Button, Center, Loader, Stack, Text, Title } from "@mantine/core";
import type { QueryClient } from "@tanstack/react-query";
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  Link,
  lazyRouteComponent,
  notFound,
  Outlet,
  redirect,
} from "@tanstack/react-router";
import { useDocumentTitle } from "./components/document-title";
import { validateLicenseKeySearch } from "./features/license-keys/search";
import { authClient } from "./lib/auth-client";
import { validateListSearch } from "./lib/list-search";
import { sessionQuery } from "./lib/queries";

/** The organization queries, loaded with the dashboard (not with the sign-in pages). */
const organizationModule = () => import("./lib/organization");

/**
 * The route tree, one subtree per audience: `auth` (the sign-in pages) and `dashboard` (the
 * signed-in merchant). Checkout and the customer portal come with their issues. Every page is
 * its own chunk, loaded when its route is visited.
 */

export interface RouterContext {
  queryClient: QueryClient;
}

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
/** A path of this app to return to after signing in (never another origin). */
export const localPath = (value: unknown) => {
  const path = text(value);
  return path?.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\") ? path : undefined;
};
/** Search params without their undefined entries (so links do not carry empty keys). */
const opt = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function PageLoader() {
  return (
    <Center mih="50dvh">
      <Loader aria-label="Loading" />
    </Center>
  );
}

function NotFound() {
  useDocumentTitle("Page not found");
  return (
    <Center mih="80dvh" p="md">
      <Stack align="center" gap="sm">
        <Title order={1} size="h2">
          Page not found
        </Title>
        <Text c="dimmed">There is nothing at this address.</Text>
        <Anchor component={Link} to="/">
          Back to Kassa
        </Anchor>
      </Stack>
    </Center>
  );
}

function RouteError({ error, reset }: { error: unknown; reset: () => void }) {
  return (
    <Center mih="80dvh" p="md">
      <Stack align="center" gap="sm" maw={420} ta="center">
        <Title order={1} size="h2">
          This page could not be shown
        </Title>
        <Text c="dimmed">{error instanceof Error ? error.message : "Something went wrong."}</Text>
        <Button variant="light" onClick={reset}>
          Try again
        </Button>
      </Stack>
    </Center>
  );
}

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  notFoundComponent: NotFound,
  errorComponent: RouteError,
  pendingComponent: PageLoader,
});

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  beforeLoad: async ({ context }) => {
    const session = await context.queryClient.fetchQuery(sessionQuery);
    throw redirect({ to: session ? "/dashboard" : "/sign-in", replace: true });
  },
});

// --- auth: the sign-in pages -------------------------------------------------------------
const authRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: "auth",
  component: lazyRouteComponent(() => import("./routes/auth/layout"), "AuthLayout"),
});

const signInRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/sign-in",
  validateSearch: (s: Record<string, unknown>): { email?: string; redirect?: string } =>
    opt({ email: text(s.email), redirect: localPath(s.redirect) }),
  component: lazyRouteComponent(() => import("./routes/auth/sign-in"), "SignInPage"),
});

const signUpRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/sign-up",
  validateSearch: (s: Record<string, unknown>): { email?: string; redirect?: string } =>
    opt({ email: text(s.email), redirect: localPath(s.redirect) }),
  component: lazyRouteComponent(() => import("./routes/auth/sign-up"), "SignUpPage"),
});

const verifyEmailRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/verify-email",
  validateSearch: (s: Record<string, unknown>): { email?: string; reason?: "sign-in" | "sign-up" } =>
    opt({
      email: text(s.email),
      reason: s.reason === "sign-in" || s.reason === "sign-up" ? s.reason : undefined,
    }),
  component: lazyRouteComponent(() => import("./routes/auth/verify-email"), "VerifyEmailPage"),
});

const verifiedRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/verified",
  validateSearch: (s: Record<string, unknown>): { error?: string } => opt({ error: text(s.error) }),
  component: lazyRouteComponent(() => import("./routes/auth/verified"), "VerifiedPage"),
});

const forgotPasswordRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/forgot-password",
  component: lazyRouteComponent(() => import("./routes/auth/forgot-password"), "ForgotPasswordPage"),
});

const resetPasswordRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/reset-password",
  validateSearch: (s: Record<string, unknown>): { token?: string; error?: string } =>
    opt({ token: text(s.token), error: text(s.error) }),
  component: lazyRouteComponent(() => import("./routes/auth/reset-password"), "ResetPasswordPage"),
});

const errorRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/error",
  validateSearch: (s: Record<string, unknown>): { error?: string } => opt({ error: text(s.error) }),
  component: lazyRouteComponent(() => import("./routes/auth/error"), "ErrorPage"),
});

const accountDeletedRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/account-deleted",
  component: lazyRouteComponent(() => import("./routes/auth/account-deleted"), "AccountDeletedPage"),
});

const devMailboxRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/dev/mailbox",
  component: lazyRouteComponent(() => import("./routes/dev/mailbox"), "DevMailboxPage"),
});

/** The invitee's page, reached from the mailed link (`?email=` is the invited address). */
const acceptInvitationRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/accept-invitation/$invitationId",
  validateSearch: (s: Record<string, unknown>): { email?: string } => opt({ email: text(s.email) }),
  component: lazyRouteComponent(() => import("./routes/auth/accept-invitation"), "AcceptInvitationPage"),
});

// --- dashboard: signed-in only ----------------------------------------------------------
// `/dashboard` picks an organization; everything a merchant does lives under
// `/dashboard/$slug/...` (see docs/architecture.md): billing pages join `orgRoute`'s children.
const dashboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/dashboard",
  beforeLoad: async ({ context, location }) => {
    const session = await context.queryClient.fetchQuery(sessionQuery);
    if (!session) throw redirect({ to: "/sign-in", search: { redirect: location.href }, replace: true });
    return { session };
  },
  component: lazyRouteComponent(() => import("./routes/dashboard/layout"), "DashboardLayout"),
});

/** `/dashboard`: the active organization (or the first), else an empty state that offers to create one. */
const dashboardIndexRoute = createRoute({
  getParentRoute: () => dashboardRoute,
  path: "/",
  beforeLoad: async ({ context }) => {
    const { organizationsQuery } = await organizationModule();
    const organizations = await context.queryClient.fetchQuery({ ...organizationsQuery, staleTime: 0 });
    const active = context.session.session.activeOrganizationId;
    const target = organizations.find((o) => o.id === active) ?? organizations[0];
    if (target) throw redirect({ to: "/dashboard/$slug", params: { slug: target.slug }, replace: true });
  },
  component: lazyRouteComponent(() => import("./routes/dashboard/home"), "DashboardHome"),
});

const newOrganizationRoute = createRoute({
  getParentRoute: () => dashboardRoute,
  path: "/new",
  component: lazyRouteComponent(() => import("./routes/dashboard/new-organization"), "NewOrganizationPage"),
});

/** The home, analytics and not-found pages of an organization: one chunk, one import site (one preload list in the entry). */
const organizationPages = () => import("./routes/dashboard/organization");

/**
 * One organization: the slug in the address decides which, and becomes the session's active
 * organization (so calls that default to it agree with the page).
 */
const orgRoute = createRoute({
  getParentRoute: () => dashboardRoute,
  path: "/$slug",
  beforeLoad: async ({ context, params }) => {
    const { organizationsQuery } = await organizationModule();
    const organizations = await context.queryClient.ensureQueryData(organizationsQuery);
    let organization = organizations.find((o) => o.slug === params.slug);
    if (!organization) {
      // Just created or renamed elsewhere: ask again before saying it does not exist.
      const fresh = await context.queryClient.fetchQuery({ ...organizationsQuery, staleTime: 0 });
      organization = fresh.find((o) => o.slug === params.slug);
    }
    if (!organization) throw notFound();
    if (context.session.session.activeOrganizationId !== organization.id) {
      const { error } = await authClient.organization.setActive({ organizationId: organization.id });
      if (!error) {
        await context.queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
      }
    }
    return { organizationId: organization.id };
  },
  loader: async ({ context, params }) => {
    const { fullOrganizationQuery } = await organizationModule();
    return context.queryClient.ensureQueryData(fullOrganizationQuery(params.slug));
  },
  notFoundComponent: lazyRouteComponent(organizationPages, "OrganizationNotFound"),
  component: Outlet,
});

const orgHomeRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(organizationPages, "OrganizationHome"),
});

/** Every metric as a chart, with the period, interval and product in the address (charts load lazily). */
const analyticsRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/analytics",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(organizationPages, "AnalyticsPage"),
});

const orgSettingsRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/settings",
  component: lazyRouteComponent(() => import("./routes/dashboard/settings/layout"), "SettingsLayout"),
});

const orgGeneralSettingsRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/",
  component: lazyRouteComponent(() => import("./routes/dashboard/settings/general"), "GeneralSettingsPage"),
});

const orgMembersRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/members",
  component: lazyRouteComponent(() => import("./routes/dashboard/settings/members"), "MembersPage"),
});

const orgInvitationsRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/invitations",
  component: lazyRouteComponent(() => import("./routes/dashboard/settings/invitations"), "InvitationsPage"),
});

const orgTeamsRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/teams",
  component: lazyRouteComponent(() => import("./routes/dashboard/settings/teams"), "TeamsPage"),
});

const orgTeamRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/teams/$teamId",
  component: lazyRouteComponent(() => import("./routes/dashboard/settings/team"), "TeamPage"),
});

// --- billing (issue 4): the pages call /v1 with the session cookie -------------------------
/** One chunk for the billing pages (the product editor is its own, see billing/pages.ts). */
const billingPages = () => import("./routes/dashboard/billing/pages");
const productsRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/products",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "ProductsPage"),
});

const productNewRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/products/new",
  component: lazyRouteComponent(billingPages, "ProductEditorPage"),
});

const productRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/products/$productId",
  component: lazyRouteComponent(billingPages, "ProductEditorPage"),
});

const benefitsRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/benefits",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "BenefitsPage"),
});

const metersRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/meters",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "MetersPage"),
});

// Usage (issue 16): a meter's usage and balances, the events explorer; period and filters in the address.
const meterRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/meters/$meterId",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "MeterPage"),
});

const eventsRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/events",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "EventsPage"),
});

const customFieldsRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/custom-fields",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "CustomFieldsPage"),
});

const licenseKeysRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/license-keys",
  validateSearch: validateLicenseKeySearch,
  component: lazyRouteComponent(billingPages, "LicenseKeysPage"),
});

const discountsRoute = createRoute({
  getParentRoute: () => orgRoute,
  path: "/discounts",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "DiscountsPage"),
});

// --- commerce (issue 5): customers, sales and checkout links, in the same billing chunk ----
const billingPage = <P extends string>(path: P, name: string, list = true) =>
  createRoute({
    getParentRoute: () => orgRoute,
    path,
    ...(list ? { validateSearch: validateListSearch } : {}),
    component: lazyRouteComponent(billingPages, name as "CustomersPage"),
  });
const customersRoute = billingPage("/customers", "CustomersPage");
const customerRoute = billingPage("/customers/$customerId", "CustomerPage", false);
const ordersRoute = billingPage("/orders", "OrdersPage");
const orderRoute = billingPage("/orders/$orderId", "OrderPage", false);
const subscriptionsRoute = billingPage("/subscriptions", "SubscriptionsPage");
const subscriptionRoute = billingPage("/subscriptions/$subscriptionId", "SubscriptionPage", false);
const checkoutsRoute = billingPage("/checkouts", "CheckoutsPage");
const checkoutRoute = billingPage("/checkouts/$checkoutId", "CheckoutPage", false);
const checkoutLinksRoute = billingPage("/checkout-links", "CheckoutLinksPage");

const billingSettingsRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/billing",
  component: lazyRouteComponent(billingPages, "BillingSettingsPage"),
});

const webhooksRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/webhooks",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "WebhooksPage"),
});

const webhookEndpointRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/webhooks/$endpointId",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "WebhookEndpointPage"),
});

const taxRatesRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/tax-rates",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "TaxRatesPage"),
});

const accessTokensRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: "/access-tokens",
  validateSearch: validateListSearch,
  component: lazyRouteComponent(billingPages, "AccessTokensPage"),
});

// --- account: the signed-in person's own account and API keys ------------------------------
const requireSession = async ({
  context,
  location,
}: {
  context: RouterContext;
  location: { href: string };
}) => {
  const session = await context.queryClient.fetchQuery(sessionQuery);
  if (!session) throw redirect({ to: "/sign-in", search: { redirect: location.href }, replace: true });
};

const accountShellRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/account",
  beforeLoad: requireSession,
  component: lazyRouteComponent(() => import("./routes/dashboard/layout"), "DashboardLayout"),
});

const accountRoute = createRoute({
  getParentRoute: () => accountShellRoute,
  id: "account-sections",
  component: lazyRouteComponent(() => import("./routes/account/layout"), "AccountLayout"),
});

const accountPage = <P extends string>(path: P, load: () => Promise<Record<string, unknown>>, name: string) =>
  createRoute({
    getParentRoute: () => accountRoute,
    path,
    // biome-ignore lint/suspicious/noExplicitAny: lazyRouteComponent's module type is generic over the export name.
    component: lazyRouteComponent(load as () => Promise<any>, name),
  });

const profileRoute = accountPage("/", () => import("./routes/account/profile"), "ProfilePage");
const passwordRoute = accountPage("/password", () => import("./routes/account/password"), "PasswordPage");
const linkedAccountsRoute = createRoute({
  getParentRoute: () => accountRoute,
  path: "/linked-accounts",
  validateSearch: (s: Record<string, unknown>): { error?: string } => opt({ error: text(s.error) }),
  component: lazyRouteComponent(() => import("./routes/account/linked-accounts"), "LinkedAccountsPage"),
});
const sessionsRoute = accountPage("/sessions", () => import("./routes/account/sessions"), "SessionsPage");
const apiKeysRoute = accountPage("/api-keys", () => import("./routes/account/api-keys"), "ApiKeysPage");
const deleteAccountRoute = accountPage(
  "/delete",
  () => import("./routes/account/delete"),
  "DeleteAccountPage",
);

// --- admin: platform admins only (the server refuses everyone else) ------------------------
const adminShellRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/admin",
  beforeLoad: requireSession,
  component: lazyRouteComponent(() => import("./routes/dashboard/layout"), "DashboardLayout"),
});

const adminRoute = createRoute({
  getParentRoute: () => adminShellRoute,
  id: "admin-pages",
  component: lazyRouteComponent(() => import("./routes/admin/layout"), "AdminLayout"),
});

const adminUsersRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: "/",
  validateSearch: (s: Record<string, unknown>): { q?: string; by?: "email" | "name"; page?: number } => {
    const page = Number(s.page);
    return opt({
      q: text(s.q),
      by: s.by === "name" || s.by === "email" ? s.by : undefined,
      page: Number.isInteger(page) && page > 1 ? page : undefined,
    });
  },
  component: lazyRouteComponent(() => import("./routes/admin/users"), "AdminUsersPage"),
});

const adminUserRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: "/users/$userId",
  component: lazyRouteComponent(() => import("./routes/admin/user"), "AdminUserPage"),
});

export const routeTree = rootRoute.addChildren([
  indexRoute,
  authRoute.addChildren([
    signInRoute,
    signUpRoute,
    verifyEmailRoute,
    verifiedRoute,
    forgotPasswordRoute,
    resetPasswordRoute,
    errorRoute,
    devMailboxRoute,
    acceptInvitationRoute,
    accountDeletedRoute,
  ]),
  dashboardRoute.addChildren([
    dashboardIndexRoute,
    newOrganizationRoute,
    orgRoute.addChildren([
      orgHomeRoute,
      analyticsRoute,
      productsRoute,
      productNewRoute,
      productRoute,
      benefitsRoute,
      metersRoute,
      meterRoute,
      eventsRoute,
      customFieldsRoute,
      discountsRoute,
      licenseKeysRoute,
      customersRoute,
      customerRoute,
      ordersRoute,
      orderRoute,
      subscriptionsRoute,
      subscriptionRoute,
      checkoutsRoute,
      checkoutRoute,
      checkoutLinksRoute,
      orgSettingsRoute.addChildren([
        orgGeneralSettingsRoute,
        orgMembersRoute,
        orgInvitationsRoute,
        orgTeamsRoute,
        orgTeamRoute,
        billingSettingsRoute,
        webhooksRoute,
        webhookEndpointRoute,
        accessTokensRoute,
        taxRatesRoute,
      ]),
    ]),
  ]),
  accountShellRoute.addChildren([
    accountRoute.addChildren([
      profileRoute,
      passwordRoute,
      linkedAccountsRoute,
      sessionsRoute,
      apiKeysRoute,
      deleteAccountRoute,
    ]),
  ]),
  adminShellRoute.addChildren([adminRoute.addChildren([adminUsersRoute, adminUserRoute])]),
]);

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    context: { queryClient },
    defaultPreload: "intent",
    defaultPendingMs: 300,
    scrollRestoration: true,
  });
}

declare module "@tanstack/react-router" {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
