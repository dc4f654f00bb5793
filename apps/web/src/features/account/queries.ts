import { queryOptions } from "@tanstack/react-query";
import { authClient } from "../../lib/auth-client";
import { serverErrorMessage } from "../../lib/server-errors";

/** A client call's data, or an Error in the server's words (for queries). */
export async function dataOf<T>(
  run: () => Promise<{ data: T | null; error: { message?: string | undefined; status: number } | null }>,
): Promise<T> {
  const { data, error } = await run();
  if (error) throw new Error(serverErrorMessage(error));
  if (data === null) throw new Error("The server answered nothing.");
  return data;
}

/** The signed-in person's linked accounts (credential and social). */
export const linkedAccountsQuery = queryOptions({
  queryKey: ["account", "linked-accounts"],
  queryFn: () => dataOf(() => authClient.listAccounts()),
});
export type LinkedAccount = Awaited<ReturnType<NonNullable<typeof linkedAccountsQuery.queryFn>>>[number];

/** The signed-in person's active sessions. */
export const sessionsQuery = queryOptions({
  queryKey: ["account", "sessions"],
  queryFn: () => dataOf(() => authClient.listSessions()),
});
export type ActiveSession = Awaited<ReturnType<NonNullable<typeof sessionsQuery.queryFn>>>[number];
