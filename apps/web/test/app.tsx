import type { PublicConfig } from "@kassa/contracts";
import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRouter, RouterProvider } from "@tanstack/react-router";
import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { vi } from "vitest";
import { publicConfigQuery, type Session, sessionQuery } from "../src/lib/queries";
import { routeTree } from "../src/router";
import { theme } from "../src/theme";
import { routeFetchTo } from "./fetch";

export const baseConfig: PublicConfig = {
  passwordMinLength: 8,
  passwordMaxLength: 128,
  usernameMinLength: 3,
  usernameMaxLength: 30,
  socialProviders: [],
  captcha: null,
  devMailbox: false,
};

/** A signed-in session as `get-session` answers it. */
export function sessionFor(user: { role?: string; name?: string; impersonatedBy?: string } = {}): Session {
  const now = new Date();
  return {
    session: {
      id: "11111111-1111-4111-8111-111111111111",
      token: "session-token",
      userId: "22222222-2222-4222-8222-222222222222",
      expiresAt: new Date(now.getTime() + 86_400_000),
      createdAt: now,
      updatedAt: now,
      ipAddress: "127.0.0.1",
      userAgent: "test",
      impersonatedBy: user.impersonatedBy ?? null,
    },
    user: {
      id: "22222222-2222-4222-8222-222222222222",
      name: user.name ?? "Ada Lovelace",
      email: "ada@example.com",
      emailVerified: true,
      image: null,
      createdAt: now,
      updatedAt: now,
      role: user.role ?? "user",
      banned: false,
      username: null,
      displayUsername: null,
    },
  } as unknown as Session;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

/**
 * Replaces `fetch` with answers per path (`"GET /api/auth/list-sessions"` or just the path);
 * every request is recorded. Unknown paths answer 404; an answer that is a `Response` (see
 * `answerWith`) is sent as it is, for refusals.
 */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function stubServer(answers: Record<string, unknown | ((req: RecordedRequest) => unknown)>) {
  const requests: RecordedRequest[] = [];
  const fetchStub = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      // A file's bytes (an upload's PUT) stay text; everything else the app sends is JSON.
      body: text ? jsonOrText(text) : undefined,
    };
    requests.push(recorded);
    const answer = answers[`${request.method} ${url.pathname}`] ?? answers[url.pathname];
    if (answer === undefined) {
      return new Response(JSON.stringify({ code: "NOT_FOUND", message: "not found" }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    }
    const value =
      typeof answer === "function" ? (answer as (r: RecordedRequest) => unknown)(recorded) : answer;
    if (value instanceof Response) return value.clone();
    return new Response(JSON.stringify(value), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  });
  routeFetchTo(fetchStub as unknown as typeof fetch);
  return { requests, fetchStub };
}

/** Renders the real route tree at `path`, with the session and configuration already known. */
export function renderApp(path: string, opts: { session?: Session | null; config?: PublicConfig } = {}) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  queryClient.setQueryData(sessionQuery.queryKey, opts.session ?? null);
  queryClient.setQueryData(publicConfigQuery.queryKey, opts.config ?? baseConfig);
  const router = createRouter({
    routeTree,
    context: { queryClient },
    history: createMemoryHistory({ initialEntries: [path] }),
    defaultPendingMs: 0,
  });
  const user = userEvent.setup({ delay: null });
  const view = render(
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { ...view, user, router, queryClient };
}

/** An answer with a status of its own (a 422 with Polar's `detail`, a 500). */
export const answerWith = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
