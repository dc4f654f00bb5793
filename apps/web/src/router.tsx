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
  ]),
  dashboardRoute.addChildren([dashboardHomeRoute]),
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
