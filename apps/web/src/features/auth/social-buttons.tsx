import type { PublicConfig } from "@kassa/contracts";
import { Alert, Button, Divider, Stack } from "@mantine/core";
import { IconBrandGithub, IconBrandGoogle, IconKey } from "@tabler/icons-react";
import { useState } from "react";
import { authClient } from "../../lib/auth-client";
import { serverErrorMessage } from "../../lib/server-errors";

const ICONS: Record<string, typeof IconKey> = { github: IconBrandGithub, google: IconBrandGoogle };

/** One button per configured sign-in provider; the provider sends the person back to the dashboard. */
export function SocialButtons({ providers }: { providers: PublicConfig["socialProviders"] }) {
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (providers.length === 0) return null;

  const start = async (provider: PublicConfig["socialProviders"][number]) => {
    setPending(provider.id);
    setError(null);
    const options = { callbackURL: "/dashboard", errorCallbackURL: "/error" };
    // Better Auth 1.7 starts generic OAuth (OIDC) providers through /sign-in/social as well.
    const res = await authClient.signIn.social({ provider: provider.id, ...options });
    if (res.error) {
      setPending(null);
      setError(serverErrorMessage(res.error));
      return;
    }
    if (res.data?.url) window.location.assign(res.data.url);
  };

  return (
    <Stack gap="sm">
      <Divider label="or" labelPosition="center" />
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      {providers.map((p) => {
        const Icon = ICONS[p.id] ?? IconKey;
        return (
          <Button
            key={p.id}
            variant="default"
            leftSection={<Icon size={18} aria-hidden />}
            loading={pending === p.id}
            onClick={() => void start(p)}
            fullWidth
          >
            Continue with {p.name}
          </Button>
        );
      })}
    </Stack>
  );
}
