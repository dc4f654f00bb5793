import { queryOptions } from "@tanstack/react-query";
import { authClient } from "../../lib/auth-client";
import { dataOf } from "../account/queries";

export const ADMIN_PAGE_SIZE = 20;

export interface UserSearch {
  q?: string;
  by?: "email" | "name";
  page?: number;
}

export const adminUsersQuery = ({ q, by = "email", page = 1 }: UserSearch) =>
  queryOptions({
    queryKey: ["admin", "users", { q: q ?? "", by, page }],
    queryFn: () =>
      dataOf(() =>
        authClient.admin.listUsers({
          query: {
            limit: ADMIN_PAGE_SIZE,
            offset: (page - 1) * ADMIN_PAGE_SIZE,
            sortBy: "createdAt",
            sortDirection: "desc",
            ...(q ? { searchValue: q, searchField: by, searchOperator: "contains" as const } : {}),
          },
        }),
      ),
    placeholderData: (previous) => previous,
  });

export const adminUserQuery = (userId: string) =>
  queryOptions({
    queryKey: ["admin", "user", userId],
    queryFn: () => dataOf(() => authClient.admin.getUser({ query: { id: userId } })),
  });

export const adminUserSessionsQuery = (userId: string) =>
  queryOptions({
    queryKey: ["admin", "user", userId, "sessions"],
    queryFn: () => dataOf(() => authClient.admin.listUserSessions({ userId })),
  });
