import { apiKeyClient } from "@better-auth/api-key/client";
import { adminClient, organizationClient, usernameClient } from "better-auth/client/plugins";
import { createAuthClient } from "better-auth/react";

/**
 * Better Auth's client for `/api/auth` on the origin that served the page (the Kassa server,
 * or Vite's dev server, which proxies it).
 */
export const authClient = createAuthClient({
  baseURL: typeof window === "undefined" ? "http://localhost" : window.location.origin,
  basePath: "/api/auth",
  plugins: [
    usernameClient(),
    organizationClient({ teams: { enabled: true } }),
    adminClient(),
    apiKeyClient(),
  ],
});

/** An error answer of the server: Better Auth's `{code, message}` with the HTTP status. */
export interface ServerError {
  code?: string | undefined;
  message?: string | undefined;
  status: number;
}

/** Runs a client call and returns its refusal (a network failure is status 0), or null. */
export async function refusalOf(
  run: () => Promise<{ error: ServerError | null }>,
): Promise<ServerError | null> {
  try {
    const { error } = await run();
    return error ? { code: error.code, message: error.message, status: error.status } : null;
  } catch {
    return { status: 0 };
  }
}
