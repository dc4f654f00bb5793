import { queryOptions, useQuery } from "@tanstack/react-query";
import { authClient, type ServerError } from "./auth-client";
import "./dashboard-messages";
import { serverErrorMessage } from "./server-errors";

/**
 * The organization layer as the dashboard reads it: the answers of Better Auth's
 * organization endpoints (`/api/auth/organization/*`), typed as the pages use them, and the
 * TanStack Query options that fetch them. Dates arrive as ISO strings or `Date`s.
 */

type When = string | Date;

export interface Organization {
  id: string;
  name: string;
  slug: string;
  logo?: string | null;
  metadata?: unknown;
  createdAt: When;
}

export interface MemberUser {
  id: string;
  name: string;
  email: string;
  image?: string | null;
}

export interface Member {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: When;
  teamId?: string | null;
  user: MemberUser;
}

export interface Team {
  id: string;
  name: string;
  organizationId: string;
  createdAt: When;
  updatedAt?: When | null;
}

export interface TeamMember {
  id: string;
  teamId: string;
  userId: string;
  createdAt: When;
}

export type InvitationStatus = "pending" | "accepted" | "rejected" | "canceled";

export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  role: string;
  status: InvitationStatus;
  teamId?: string | null;
  inviterId: string;
  expiresAt: When;
  createdAt?: When;
}

/** `GET /organization/get-invitation`: the invitation with what the invitee needs to decide. */
export interface InvitationDetails extends Invitation {
  organizationName: string;
  organizationSlug: string;
  inviterEmail: string;
}

export interface FullOrganization extends Organization {
  members: Member[];
  invitations: Invitation[];
  teams: Team[] | null;
}

/** A refusal of the server, thrown by the query functions (the page shows its message). */
export class ServerRefusal extends Error {
  constructor(readonly refusal: ServerError) {
    super(serverErrorMessage(refusal));
    this.name = "ServerRefusal";
  }
}

interface CallOptions {
  method?: "GET" | "POST";
  query?: Record<string, string | number | undefined>;
  body?: Record<string, unknown>;
}

/** One call to `/api/auth{path}`: the answer, or a thrown `ServerRefusal` (status 0: no answer). */
export async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
  let res: { data: T | null; error: ServerError | null };
  try {
    const query = options.query
      ? Object.fromEntries(Object.entries(options.query).filter(([, v]) => v !== undefined))
      : undefined;
    res = (await authClient.$fetch<T>(path, {
      method: options.method ?? (options.body ? "POST" : "GET"),
      ...(query ? { query } : {}),
      ...(options.body ? { body: options.body } : {}),
    })) as { data: T | null; error: ServerError | null };
  } catch {
    throw new ServerRefusal({ status: 0 });
  }
  if (res.error)
    throw new ServerRefusal({ code: res.error.code, message: res.error.message, status: res.error.status });
  return res.data as T;
}

/** Runs a call and returns its refusal, or null when it succeeded (for forms and buttons). */
export async function attempt(run: () => Promise<unknown>): Promise<ServerError | null> {
  try {
    await run();
    return null;
  } catch (e) {
    return e instanceof ServerRefusal ? e.refusal : { status: 0 };
  }
}

export const organizationKeys = {
  all: ["organizations"] as const,
  list: () => [...organizationKeys.all, "list"] as const,
  full: (slug: string) => [...organizationKeys.all, "full", slug] as const,
  invitations: (organizationId: string) => [...organizationKeys.all, "invitations", organizationId] as const,
  teamMembers: (teamId: string) => [...organizationKeys.all, "team-members", teamId] as const,
};

/** The organizations the signed-in person belongs to. */
export const organizationsQuery = queryOptions({
  queryKey: organizationKeys.list(),
  queryFn: () => call<Organization[]>("/organization/list"),
  staleTime: 30_000,
});

/** One organization by its slug with its members and teams (and invitations when the viewer may see them). */
export const fullOrganizationQuery = (slug: string) =>
  queryOptions({
    queryKey: organizationKeys.full(slug),
    queryFn: () =>
      call<FullOrganization | null>("/organization/get-full-organization", {
        query: { organizationSlug: slug, membersLimit: 1000 },
      }),
    // Others change members and teams from their own browsers: each page shows the cached
    // organization at once and asks again behind it.
    staleTime: 0,
  });

export const invitationsQuery = (organizationId: string) =>
  queryOptions({
    queryKey: organizationKeys.invitations(organizationId),
    queryFn: () => call<Invitation[]>("/organization/list-invitations", { query: { organizationId } }),
  });

export const teamMembersQuery = (teamId: string) =>
  queryOptions({
    queryKey: organizationKeys.teamMembers(teamId),
    queryFn: () => call<TeamMember[]>("/organization/list-team-members", { query: { teamId } }),
    retry: false,
  });

/** The organization of the current `/dashboard/{slug}` page (loaded by the route before it renders). */
export function useOrganization(slug: string) {
  return useQuery(fullOrganizationQuery(slug));
}

/** `POST /organization/check-slug`: null when the slug is free, else the server's refusal ("slug is taken"). */
export function checkSlug(slug: string): Promise<ServerError | null> {
  return attempt(() => call<{ status: boolean }>("/organization/check-slug", { body: { slug } }));
}

export const toDate = (value: When) => (value instanceof Date ? value : new Date(value));

/** A date and time in the viewer's locale. */
export const formatDateTime = (value: When) =>
  toDate(value).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

export const formatDate = (value: When) =>
  toDate(value).toLocaleDateString(undefined, { dateStyle: "medium" });
