import { Anchor, Button, Center, Loader, Stack, Text, Title } from "@mantine/core";
import type { QueryClient } from "@tanstack/react-query";
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  Link,
  lazyRouteComponent,
  Outlet,
  redirect,
} from "@tanstack/react-router";
import { sessionQuery } from "./lib/queries";

/**
 * The route tree, one subtree per audience: `auth` (the sign-in pages) and `dashboard` (the
 * signed-in merchant). Checkout and the customer portal come with their issues. Every page is
 * its own chunk, loaded when its route is visited.
 */

export interface RouterContext {
  queryClient: QueryClient;
}

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
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
  validateSearch: (s: Record<string, unknown>): { email?: string } => opt({ email: text(s.email) }),
  component: lazyRouteComponent(() => import("./routes/auth/sign-in"), "SignInPage"),
});

const signUpRoute = createRoute({
  getParentRoute: () => authRoute,
  path: "/sign-up",
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

// --- dashboard: signed-in only ----------------------------------------------------------
const dashboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/dashboard",
  beforeLoad: async ({ context }) => {
    const session = await context.queryClient.fetchQuery(sessionQuery);
    if (!session) throw redirect({ to: "/sign-in", replace: true });
  },
  component: lazyRouteComponent(() => import("./routes/dashboard/layout"), "DashboardLayout"),
});

const dashboardHomeRoute = createRoute({
  getParentRoute: () => dashboardRoute,
  path: "/",
  component: lazyRouteComponent(() => import("./routes/dashboard/home"), "DashboardHome"),
});

// --- account: the signed-in person's own account and API keys ------------------------------
const requireSession = async ({ context }: { context: RouterContext }) => {
  const session = await context.queryClient.fetchQuery(sessionQuery);
  if (!session) throw redirect({ to: "/sign-in", replace: true });
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
    accountDeletedRoute,
  ]),
  dashboardRoute.addChildren([dashboardHomeRoute]),
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
