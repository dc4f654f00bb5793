import {
  type OrganizationAction,
  type OrganizationResource,
  parseRoles,
  rolesCan,
} from "@kassa/contracts/organization";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { type FullOrganization, fullOrganizationQuery, type Member } from "../../lib/organization";
import { sessionQuery } from "../../lib/queries";

/** What the signed-in person may do in an organization, from their member roles (spec section 6). */
export interface Viewer {
  userId: string;
  member: Member | null;
  roles: string[];
  can: <R extends OrganizationResource>(resource: R, action: OrganizationAction<R>) => boolean;
}

export function viewerOf(organization: Pick<FullOrganization, "members">, userId: string): Viewer {
  const member = organization.members.find((m) => m.userId === userId) ?? null;
  const roles = parseRoles(member?.role);
  return { userId, member, roles, can: (resource, action) => rolesCan(roles, resource, action) };
}

/** The organization of the current `/dashboard/{slug}/...` page and the viewer's place in it. */
export function useCurrentOrganization() {
  const { slug = "" } = useParams({ strict: false });
  const organization = useQuery(fullOrganizationQuery(slug));
  const session = useQuery(sessionQuery);
  const data = organization.data ?? null;
  const userId = session.data?.user.id ?? "";
  return {
    slug,
    query: organization,
    organization: data,
    viewer: data ? viewerOf(data, userId) : null,
  };
}
