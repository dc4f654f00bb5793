import { Alert, Container, Stack } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Outlet } from "@tanstack/react-router";
import { isPlatformAdmin } from "../../features/admin/roles";
import { sessionQuery } from "../../lib/queries";

/** The admin pages, for platform admins only (the server refuses everyone else anyway). */
export function AdminLayout() {
  const session = useQuery(sessionQuery);
  const user = session.data?.user;
  return (
    <Container size="lg" px={0}>
      <Stack gap="lg">
        {user && !isPlatformAdmin(user) ? (
          <Alert color="orange" role="alert" title="Admins only">
            These pages are for platform admins. Your account does not have the admin role.
          </Alert>
        ) : (
          <Outlet />
        )}
      </Stack>
    </Container>
  );
}
